// The gateway's path rules, pure: hostile paths (dot segments, encoded slashes or dots,
// backslashes, empty segments) are refused before the route table (../edge/route-table.ts) looks at
// them, so no route ever sees a path that a later decoding could turn into another one.

/** The tool URLs clients connect to, each an OAuth protected resource of its own name. */
export type ToolEndpoint = "mcp" | "sse";

const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;

/** The path part of a request target, or null when it is hostile. */
export function checkedPath(target: string | undefined): string | null {
  const raw = target ?? "/";
  if (!raw.startsWith("/") || raw.length > 8192) return null;
  const q = raw.indexOf("?");
  const path = q === -1 ? raw : raw.slice(0, q);
  if (/%(2f|5c|2e|00)/i.test(path) || path.includes("\\")) return null;
  const segments = path.split("/").slice(1);
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s === "." || s === "..") return null;
    if (s === "" && i !== segments.length - 1) return null;
    if (s !== "" && !SEGMENT.test(s.replace(/%[0-9A-Fa-f]{2}/g, "x"))) return null;
  }
  return path;
}

/** What the routes read of a query string. */
export type Query = Pick<URLSearchParams, "get">;

const NO_QUERY: Query = Object.freeze({ get: () => null });

/** The query of a request target; most have none, and then none is parsed. */
export function queryOf(target: string | undefined): Query {
  const at = target?.indexOf("?") ?? -1;
  return at < 0 ? NO_QUERY : new URLSearchParams(target!.slice(at + 1));
}
