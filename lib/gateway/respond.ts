// Every answer the gateway writes itself: JSON with a stable `error` code, and the CORS
// headers browser hosts need to read it (401 and 403 included).
import type { ServerResponse } from "node:http";
import { BodyError } from "../http/body.ts";
import { CORS as PROFILES } from "../http/cors.ts";
import { jsonWriter } from "../http/respond.ts";
import { headersOf, statusOf, wireCodeOf } from "../http/status.ts";
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS, StoreFullError } from "./store/store-errors.ts";

/** The gateway's CORS headers, for the answers it streams or relays itself. */
export const CORS = PROFILES.gateway.actual;

/**
 * The one table from the gateway's wire codes (`{"error": code}`, the contract's) to HTTP
 * statuses: a refusal names its code, never its status.
 */
const STATUS = {
  bad_path: 400,
  /** A registered tool that breaks gateway.json's rules or the registry's, or a malformed import. */
  bad_tool: 400,
  /** A console link the gateway did not sign, for this tool session, or malformed. */
  console_link_invalid: 400,
  no_session: 400,
  session_required: 400,
  body_not_json: statusOf("HUBMCP_BODY_NOT_JSON"),
  body_aborted: statusOf("HUBMCP_BODY_ABORTED"),
  unauthorized: 401,
  forbidden: 403,
  host_not_allowed: 403,
  not_found: 404,
  unknown_revision: 404,
  unknown_session: 404,
  unknown_tool: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  /** The registry cannot make that change as asked (a gateway.json tool, another definition, the default revision). */
  conflict: 409,
  /** A console link past its minute, or opened before: gone for good, a new one is needed. */
  console_link_expired: 410,
  console_link_used: 410,
  body_too_large: statusOf("HUBMCP_BODY_TOO_LARGE"),
  rate_limited: 429,
  too_many_running: 429,
  /** The person's own cap, as too_many_running: theirs to wait out, not the service's trouble (503 is the whole gateway's). */
  too_many_user_sessions: 429,
  /** Logged only: the client hung up, nothing is sent. */
  client_gone: 499,
  internal_error: 500,
  no_upstream_session: 502,
  tool_session_crashed: 502,
  tool_session_failed: 502,
  upstream_refused: 502,
  upstream_too_large: 502,
  upstream_unavailable: 502,
  gateway_busy: 503,
  shutting_down: 503,
  store_full: 503,
  store_unavailable: 503,
  too_many_sessions: 503,
  tool_session_not_ready: 504,
  upstream_timeout: 504,
} as const satisfies Record<string, number>;

/** A code the gateway answers with. */
export type GatewayCode = keyof typeof STATUS;

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
    this.status = STATUS[error];
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
    return err instanceof StoreFullError
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
