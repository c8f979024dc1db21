// Every answer the gateway writes itself: JSON with a stable `error` code (its status is the
// code's, declared in lib/util/errors.ts), and the CORS headers browser hosts need to read it
// (401 and 403 included).
import type { ServerResponse } from "node:http";
import { BodyError } from "../../http/body.ts";
import { CORS as PROFILES } from "../../http/cors.ts";
import { jsonWriter } from "../../http/respond.ts";
import { headersOf, wireCodeOf } from "../../http/status.ts";
import { ErrorCode, WIRE_OF, wireStatus, type WireCode } from "../../util/errors.ts";
import { failure } from "../../util/jsonrpc.ts";
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "./store-errors.ts";

/** The gateway's CORS headers, for the answers it streams or relays itself. */
export const CORS = PROFILES.gateway.actual;

/** A code the gateway answers with. */
export type GatewayCode = WireCode;

/** A failure answered with its code's status and `{error, message, ...extra}`; `error` is the wire code (contract), `code` the JS one. */
export class GatewayError extends Error {
  readonly code = "HUBMCP_GATEWAY_REFUSAL";
  readonly status: number;
  constructor(
    readonly error: GatewayCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = wireStatus(error);
  }
}

/**
 * The answer for a failure that is not our own GatewayError, if it has one: the store being
 * unreachable, or its disk full, is a 503 the client may retry (its tokens are not wrong),
 * never a 500.
 */
export function knownFailure(err: unknown): GatewayError | undefined {
  if (err instanceof GatewayError) return err;
  if (err instanceof BodyError) return new GatewayError(wireCodeOf(err.code), err.message, headersOf(err.code));
  if (isStoreUnavailable(err)) {
    const retry = { "retry-after": String(STORE_RETRY_AFTER_SECONDS) };
    return WIRE_OF[err.code] === "store_full"
      ? new GatewayError("store_full", "The gateway cannot save data just now; try again later", retry)
      : new GatewayError("store_unavailable", "The gateway cannot reach its store just now; try again shortly", retry);
  }
  return undefined;
}

/** The gateway's JSON answers: never cached (they name sessions and people). */
export const sendJson = jsonWriter({ cors: PROFILES.gateway, headers: { "cache-control": "no-store" }, started: "destroy" });

export function sendError(res: ServerResponse, err: GatewayError): void {
  sendJson(res, err.status, { error: err.error, message: err.message, ...err.extra }, err.headers);
}

/** A body that is no JSON-RPC message: JSON-RPC's parse error (id null) under body_not_json's status. */
export function sendParseError(res: ServerResponse): void {
  sendJson(res, wireStatus("body_not_json"), failure(null, { code: ErrorCode.ParseError, message: "Parse error" }));
}
