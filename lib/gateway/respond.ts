// Every answer the gateway writes itself: JSON with a stable `error` code, and the CORS
// headers browser hosts need to read it (401 and 403 included).
import type { ServerResponse } from "node:http";
import { BodyError } from "../http/body.ts";
import { CORS as PROFILES } from "../http/cors.ts";
import { jsonWriter } from "../http/respond.ts";
import { headersOf, statusOf, wireCodeOf } from "../http/status.ts";
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "./store/store-errors.ts";

/** The gateway's CORS headers, for the answers it streams or relays itself. */
export const CORS = PROFILES.gateway.actual;

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
  if (err instanceof BodyError) return new GatewayError(statusOf(err.code), wireCodeOf(err.code), err.message, headersOf(err.code));
  if (isStoreUnavailable(err)) {
    return new GatewayError(503, "store_unavailable", "The gateway cannot reach its store just now; try again shortly", { "retry-after": String(STORE_RETRY_AFTER_SECONDS) });
  }
  return undefined;
}

/** The gateway's JSON answers: never cached (they name sessions and people). */
export const sendJson = jsonWriter({ cors: PROFILES.gateway, headers: { "cache-control": "no-store" }, started: "destroy" });

export function sendError(res: ServerResponse, err: GatewayError): void {
  sendJson(res, err.status, { error: err.error, message: err.message, ...err.extra }, err.headers);
}
