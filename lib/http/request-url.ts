// The parts of a request URL the routes need. The mount path is already gone from
// `req.url` (Express/Connect strip it; listen() strips its pathPrefix) and kept apart.

export interface RequestUrl {
  /** Path below the mount path, always starting with "/". */
  path: string;
  query: URLSearchParams;
  /** The mount path ("" or "/a/b"): what advertised paths (`endpoint`, OpenAPI `servers`) start with. */
  base: string;
}

const EMPTY = new URLSearchParams();

/** "" or "/a/b" (leading slash, no trailing slash). */
export function normalizePrefix(prefix: string | undefined): string {
  if (!prefix) return "";
  const trimmed = prefix.replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** "/weber/1/c/7/mcp?x" with prefix "/weber/1/c/7" → "/mcp?x"; paths outside the prefix are kept. */
export function stripPrefix(url: string, prefix: string): string {
  if (!prefix) return url;
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  if (path !== prefix && !path.startsWith(`${prefix}/`)) return url;
  const rest = path.slice(prefix.length) || "/";
  return rest + (cut === -1 ? "" : url.slice(cut));
}

export function parseRequestUrl(raw: string | undefined, base: string | undefined): RequestUrl {
  const url = raw || "/";
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (path.length > 1 && path.endsWith("/")) path = path.replace(/\/+$/, "") || "/";
  return { path, query: q === -1 ? EMPTY : new URLSearchParams(url.slice(q + 1)), base: normalizePrefix(base) };
}
