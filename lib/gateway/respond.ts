// Every answer the gateway writes itself: JSON with a stable `error` code, and the CORS
// headers browser hosts need to read it (401 and 403 included).
import type { ServerResponse } from "node:http";
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "./store/store-errors.ts";

export const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id",
} as const;

export const PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "access-control-max-age": "86400",
} as const;

/** A failure answered with `status` and `{error, message, ...extra}`; `error` is the wire code (contract), `code` the JS one. */
export class GatewayError extends Error {
  readonly code = "HUBMCP_GATEWAY_REFUSAL";
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The answer for a failure that is not our own GatewayError, if it has one: the store being
 * unreachable is a 503 the client may retry (its tokens are not wrong), never a 500.
 */
export function knownFailure(err: unknown): GatewayError | undefined {
  if (err instanceof GatewayError) return err;
  if (isStoreUnavailable(err)) {
    return new GatewayError(503, "store_unavailable", "The gateway cannot reach its store just now; try again shortly", { "retry-after": String(STORE_RETRY_AFTER_SECONDS) });
  }
  return undefined;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...CORS, ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  res.end(text);
}

export function sendError(res: ServerResponse, err: GatewayError): void {
  sendJson(res, err.status, { error: err.error, message: err.message, ...err.extra }, err.headers);
}
