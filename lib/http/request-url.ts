// The parts of a request URL the routes need, with the mount prefix removed.

export interface RequestUrl {
  /** Path with the server's prefix stripped, always starting with "/". */
  path: string;
  query: URLSearchParams;
}

const EMPTY = new URLSearchParams();

/** "" or "/a/b" (leading slash, no trailing slash). */
export function normalizePrefix(prefix: string | undefined): string {
  if (!prefix) return "";
  const trimmed = prefix.replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

export function parseRequestUrl(raw: string | undefined, prefix: string): RequestUrl {
  const url = raw ?? "/";
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (prefix && (path === prefix || path.startsWith(`${prefix}/`))) path = path.slice(prefix.length) || "/";
  if (path.length > 1 && path.endsWith("/")) path = path.replace(/\/+$/, "") || "/";
  return { path, query: q === -1 ? EMPTY : new URLSearchParams(url.slice(q + 1)) };
}
