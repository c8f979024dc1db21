// Request paths to routes, pure. Hostile paths (dot segments, encoded slashes or dots,
// backslashes, empty segments) are refused before anything else looks at them, so no
// route ever sees a path that a later decoding could turn into another one.

/** The tool URLs clients connect to, each an OAuth protected resource of its own name. */
export type ToolEndpoint = "mcp" | "sse";

export type Route =
  | { kind: "landing" }
  | { kind: "health" }
  | { kind: "ready" }
  | { kind: "metrics" }
  | { kind: "hub-mcp" }
  | { kind: "hub-resource-metadata" }
  | { kind: "resource-metadata"; tool: string; endpoint: ToolEndpoint }
  | { kind: "bootstrap"; tool: string }
  | { kind: "mcp"; tool: string }
  | { kind: "tool-root"; tool: string }
  | { kind: "session"; tool: string; session: string }
  | { kind: "sse-info"; tool: string }
  | { kind: "openapi"; tool: string }
  | { kind: "rest"; tool: string; name: string }
  | { kind: "weber"; instance: string; cookie: string }
  | { kind: "console-link" }
  | { kind: "account" }
  | { kind: "admin-api" }
  | { kind: "admin"; leaf: string }
  | { kind: "not-found" }
  | { kind: "bad-path" };

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

export function matchRoute(method: string, target: string | undefined): Route {
  const path = checkedPath(target);
  if (path === null) return { kind: "bad-path" };
  const parts = path.split("/").slice(1);
  if (parts.at(-1) === "" && parts.length > 1) parts.pop();
  if (path === "/") return { kind: "landing" };
  if (path === "/healthz") return { kind: "health" };
  if (path === "/readyz") return { kind: "ready" };
  if (path === "/metrics") return { kind: "metrics" };
  // The hub connector: one endpoint for every tool (./hub-connector/).
  if (path === "/mcp") return { kind: "hub-mcp" };
  if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/mcp/.well-known/oauth-protected-resource") return { kind: "hub-resource-metadata" };
  // RFC 9728 location: the well-known prefix, then the resource's path.
  if (
    parts[0] === ".well-known" &&
    parts[1] === "oauth-protected-resource" &&
    parts[2] === "api" &&
    parts[3] === "mcp" &&
    (parts[5] === "mcp" || parts[5] === "sse") &&
    parts.length === 6
  ) {
    return { kind: "resource-metadata", tool: parts[4]!, endpoint: parts[5] };
  }
  if (path === "/console") return { kind: "console-link" };
  if (path === "/account") return { kind: "account" };
  // The tool registry's API (./tool-registry/admin-api.ts), which reads the rest of the path itself.
  if (parts[0] === "admin" && parts[1] === "api") return { kind: "admin-api" };
  // The operator's page (./admin/); /admin/api/… is the tool registry's.
  if (parts[0] === "admin" && parts[1] !== "api") return { kind: "admin", leaf: parts.slice(1).join("/") };
  if (parts[0] === "weber" && parts.length >= 4) return { kind: "weber", instance: parts[1]!, cookie: parts[2]! };
  if (parts[0] !== "api" || parts[1] !== "mcp" || !parts[2]) return { kind: "not-found" };
  const tool = parts[2];
  const rest = parts.slice(3);
  if (rest.length === 0) return method === "POST" ? { kind: "tool-root", tool } : { kind: "bootstrap", tool };
  if (rest[0] === "mcp" && rest.length === 1) return { kind: "mcp", tool };
  if ((rest[0] === "mcp" || rest[0] === "sse") && rest[1] === ".well-known" && rest[2] === "oauth-protected-resource" && rest.length === 3) {
    return { kind: "resource-metadata", tool, endpoint: rest[0] };
  }
  if (rest.length === 1 && rest[0] === "sse") return { kind: "sse-info", tool };
  if (rest.length === 1 && rest[0] === "openapi.json") return { kind: "openapi", tool };
  if (rest.length === 2 && rest[0] === "tools") return { kind: "rest", tool, name: rest[1]! };
  if (rest.length === 1) return { kind: "session", tool, session: rest[0]! };
  return { kind: "not-found" };
}

/** What the routes read of a query string. */
export type Query = Pick<URLSearchParams, "get">;

const NO_QUERY: Query = Object.freeze({ get: () => null });

/** The query of a request target; most have none, and then none is parsed. */
export function queryOf(target: string | undefined): Query {
  const at = target?.indexOf("?") ?? -1;
  return at < 0 ? NO_QUERY : new URLSearchParams(target!.slice(at + 1));
}
