// CORS, the one place its headers are written. Every endpoint is public (`*`, never
// credentials): the bearer token or the Origin check (./host-guard.ts) decides who may ask,
// CORS only lets browser hosts read the answer. The sides differ in data, not logic.
import type { ServerResponse } from "node:http";

export interface CorsProfile {
  /** Headers of every actual answer. */
  readonly actual: Readonly<{ "access-control-allow-origin": "*"; "access-control-expose-headers": string }>;
  /** Headers of the answer to a preflight (the actual ones included). */
  readonly preflight: Readonly<Record<string, string>>;
}

interface ProfileSpec {
  /** Response headers a browser may read: the session id, and why a bearer was refused. */
  expose: string;
  methods: string;
  /** Request headers a browser may send; the contract names Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version and Last-Event-ID. */
  headers: string;
  maxAgeSeconds: number;
}

function profile(spec: ProfileSpec): CorsProfile {
  const actual = Object.freeze({ "access-control-allow-origin": "*" as const, "access-control-expose-headers": spec.expose });
  const preflight = Object.freeze({
    ...actual,
    "access-control-allow-methods": spec.methods,
    "access-control-allow-headers": spec.headers,
    "access-control-max-age": String(spec.maxAgeSeconds),
  });
  return Object.freeze({ actual, preflight });
}

const MCP_REQUEST_HEADERS = "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";

/**
 * The tool server, the gateway and the OAuth endpoints. The OAuth endpoints take no DELETE
 * and none of the MCP routing headers, and their preflight is cached for ten minutes (on the
 * gateway too: its router leaves the OAuth server's paths, preflights included, to it).
 */
export const CORS = Object.freeze({
  toolServer: profile({
    expose: "Mcp-Session-Id, WWW-Authenticate",
    methods: "GET, POST, DELETE, OPTIONS",
    headers: MCP_REQUEST_HEADERS,
    maxAgeSeconds: 86_400,
  }),
  gateway: profile({ expose: "WWW-Authenticate, Mcp-Session-Id", methods: "GET, POST, DELETE, OPTIONS", headers: MCP_REQUEST_HEADERS, maxAgeSeconds: 86_400 }),
  oauth: profile({
    expose: "WWW-Authenticate, Mcp-Session-Id",
    methods: "GET, POST, OPTIONS",
    headers: "Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
    maxAgeSeconds: 600,
  }),
});

/** Answers a preflight: 204 with the profile's preflight headers. */
export function answerPreflight(res: ServerResponse, cors: CorsProfile): void {
  res.writeHead(204, cors.preflight);
  res.end();
}

/** Sets the actual-answer headers on a response whose head is written later (pages, redirects). */
export function setCors(res: ServerResponse, cors: CorsProfile): void {
  for (const [name, value] of Object.entries(cors.actual)) res.setHeader(name, value);
}
