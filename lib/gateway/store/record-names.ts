// Record ids come from outside (user names, client ids), so they never become paths as
// they are: a file name is the id in base64url, which has no `/`, `.` or `..`.
const COLLECTION = /^[a-z][a-z0-9-]{0,63}$/;

export function checkCollection(name: string): string {
  if (!COLLECTION.test(name)) throw new TypeError("invalid record collection name");
  return name;
}

export function encodeId(id: string): string {
  if (id.length === 0 || id.length > 512) throw new TypeError("invalid record id");
  return Buffer.from(id, "utf8").toString("base64url");
}

export function decodeId(name: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return undefined;
  const id = Buffer.from(name, "base64url").toString("utf8");
  return encodeId(id) === name ? id : undefined;
}
