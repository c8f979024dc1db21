// Writing responses. Every response carries the CORS headers, so browser hosts can read
// answers; the Origin check (./host-guard.ts) decides who may ask.
import type { ServerResponse } from "node:http";

export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
} as const;

export const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "access-control-max-age": "86400",
} as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...CORS_HEADERS,
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * sendJson for JSON-RPC answers, the hot path: the same headers in the same order, written
 * as literals (no spreads to copy) with the session named when there is one.
 */
export function sendRpcJson(res: ServerResponse, status: number, body: unknown, sessionId: string | null): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  const length = Buffer.byteLength(text);
  res.writeHead(
    status,
    sessionId === null
      ? {
          "access-control-allow-origin": CORS_HEADERS["access-control-allow-origin"],
          "access-control-expose-headers": CORS_HEADERS["access-control-expose-headers"],
          "content-type": "application/json",
          "content-length": length,
        }
      : {
          "access-control-allow-origin": CORS_HEADERS["access-control-allow-origin"],
          "access-control-expose-headers": CORS_HEADERS["access-control-expose-headers"],
          "mcp-session-id": sessionId,
          "content-type": "application/json",
          "content-length": length,
        },
  );
  res.end(text);
}

/** `{error}` bodies of the REST-style routes and of HTTP-level failures. */
export function sendError(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { error: message }, headers);
}
