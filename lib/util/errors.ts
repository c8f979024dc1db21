// The error model, declared once: every code a failure is answered with, its HTTP status
// and its wire form, and the one JSON-RPC error class. Rank 0, so every edge (tool-server
// HTTP, stdio, the gateway, its OAuth endpoints, the bridge) reads the same declarations;
// spec/util/error-codes.spec.ts pins them and finds no literal JSON-RPC number or
// error-to-status table anywhere else in lib/.
//
// Two kinds of code, as undici and Node name theirs:
// - `code` on an error class is a JS-level code of the form HUBMCP_<WHAT>, one set per class,
//   never shared (the spec reads the source);
// - a code a client sees on the wire is contract (interface.md, RFC 6749, JSON-RPC) and is
//   declared below: WIRE_ERRORS (the JSON `{"error": ...}` of the HTTP edges, with the RFC 6749
//   form the OAuth endpoints give the same failure), ERROR_CODE (JSON-RPC), REFUSAL_STATUS
//   (the protocol core's refusals). A class that reaches the wire names its wire code in
//   WIRE_OF; the only classes whose `code` is a wire code are JsonRpcError (public API, the
//   JSON-RPC error code) and the browser console's RpcError.

/** JSON-RPC's own codes (JSON-RPC 2.0 section 5.1), and the ones MCP and this server add in the server range. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP server/resources: the URI names no resource. */
  ResourceNotFound: -32002,
  /** The thing exists but not for this caller (another session's task). */
  NotAvailable: -32003,
  SessionNotFound: -32001,
  /** MCP 2026-07-28 (reserved range -32020..-32099): headers disagree with the body. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the version header names no revision this server speaks. */
  UnsupportedProtocolVersion: -32022,
} as const;

export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

const BRAND = Symbol.for("hubmcp.jsonrpc-error");

/**
 * The one JSON-RPC error class: what a handler throws on purpose, a relay's own refusal, or
 * an upstream's error passed on. The client receives exactly this code, message and data (any
 * other throw becomes -32603 "Internal error"). Its message is sent to the client, so keep it
 * a short fixed text: never arguments, file contents or secrets.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
    // A brand, not instanceof alone: an app and the launcher may load two copies of this module.
    Object.defineProperty(this, BRAND, { value: true });
  }
  /** An error object another server answered, to pass on unchanged (a malformed one as -32603 "Error"). */
  static from(body: unknown): JsonRpcError {
    const b = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    return new JsonRpcError(typeof b.code === "number" ? b.code : ErrorCode.InternalError, typeof b.message === "string" ? b.message : "Error", b.data);
  }
  toBody(): JsonRpcErrorBody {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** A JsonRpcError from this or any other copy of hubmcp. */
export function isJsonRpcError(err: unknown): err is JsonRpcError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true && typeof (err as JsonRpcError).toBody === "function";
}

/**
 * The HTTP status of each refusal of the protocol core (lib/mcp/outcome.ts): MCP
 * basic/transports, and 2026-07-28 "Error Handling" for the revision's own rejections.
 */
export const REFUSAL_STATUS = {
  malformed: 400,
  "unsupported-version": 400,
  "bad-envelope": 400,
  "header-mismatch": 400,
  "missing-capability": 400,
  "unknown-method": 404,
  "internal-error": 500,
} as const;

/** How an HTTP edge answers a failure: its status, and the RFC 6749 `error` the OAuth endpoints give it. */
export interface WireError {
  readonly status: number;
  readonly oauth?: string;
  /** Headers every answer to it needs. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Every code an HTTP edge answers with as `{"error": code}` (the gateway's contract), with its
 * status: a refusal names its code, never its status.
 */
export const WIRE_ERRORS = {
  bad_path: { status: 400 },
  /** A registered tool that breaks gateway.json's rules or the registry's, or a malformed import. */
  bad_tool: { status: 400 },
  /** A console link the gateway did not sign, for this tool session, or malformed. */
  console_link_invalid: { status: 400 },
  no_session: { status: 400 },
  session_required: { status: 400 },
  body_not_json: { status: 400, oauth: "invalid_request" },
  /** The client stopped sending mid-body; the status is moot when nobody reads it. */
  body_aborted: { status: 400, oauth: "invalid_request" },
  unauthorized: { status: 401 },
  forbidden: { status: 403 },
  host_not_allowed: { status: 403 },
  not_found: { status: 404, oauth: "not_found" },
  unknown_revision: { status: 404 },
  unknown_session: { status: 404 },
  unknown_tool: { status: 404 },
  method_not_allowed: { status: 405, oauth: "invalid_request" },
  not_acceptable: { status: 406 },
  /** The registry cannot make that change as asked (a gateway.json tool, another definition, the default revision). */
  conflict: { status: 409 },
  /** A console link past its minute, or opened before: gone for good, a new one is needed. */
  console_link_expired: { status: 410 },
  console_link_used: { status: 410 },
  /** A body cut short of its end leaves the connection unusable. */
  body_too_large: { status: 413, oauth: "invalid_request", headers: { connection: "close" } },
  rate_limited: { status: 429, oauth: "too_many_requests" },
  too_many_running: { status: 429 },
  /** The person's own cap, as too_many_running: theirs to wait out, not the service's trouble (503 is the whole gateway's). */
  too_many_user_sessions: { status: 429 },
  /** Logged only: the client hung up, nothing is sent. */
  client_gone: { status: 499 },
  internal_error: { status: 500, oauth: "server_error" },
  no_upstream_session: { status: 502 },
  tool_session_crashed: { status: 502 },
  tool_session_failed: { status: 502 },
  upstream_refused: { status: 502 },
  upstream_too_large: { status: 502 },
  upstream_unavailable: { status: 502 },
  gateway_busy: { status: 503 },
  shutting_down: { status: 503 },
  /** The store failing is a 503 the client may retry (its tokens are not wrong), never a 500. */
  store_full: { status: 503, oauth: "temporarily_unavailable" },
  store_unavailable: { status: 503, oauth: "temporarily_unavailable" },
  too_many_sessions: { status: 503 },
  tool_session_not_ready: { status: 504 },
  upstream_timeout: { status: 504 },
} as const satisfies Record<string, WireError>;

/** A code an HTTP edge answers with. */
export type WireCode = keyof typeof WIRE_ERRORS;

/** The wire code of each error class's code that an edge answers as itself (the rest are internal, or a 500). */
export const WIRE_OF = {
  HUBMCP_BODY_TOO_LARGE: "body_too_large",
  HUBMCP_BODY_NOT_JSON: "body_not_json",
  HUBMCP_BODY_ABORTED: "body_aborted",
  HUBMCP_STORE_FULL: "store_full",
  HUBMCP_STORE_UNAVAILABLE: "store_unavailable",
} as const satisfies Record<string, WireCode>;

/** The status a failure is answered with. */
export function wireStatus(code: WireCode): number {
  return WIRE_ERRORS[code].status;
}

/**
 * The codes only the OAuth endpoints answer with, as `{error, error_description}`, and their
 * statuses: RFC 6749 section 5.2 (invalid_client is 401), RFC 8707 section 2 (invalid_target),
 * RFC 7591 section 3.2.2 (registration), RFC 6750 section 3.1 (a registration token).
 */
export const OAUTH_ERRORS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_target: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  /** An upstream the answer depends on (an assertion's issuer) cannot be reached; try again. */
  temporarily_unavailable: 503,
} as const;

export type OAuthCode = keyof typeof OAUTH_ERRORS;

/** The codes the OAuth endpoints answer themselves, each with its RFC 6749 form. */
export type OAuthAnswered = { [K in WireCode]: (typeof WIRE_ERRORS)[K] extends { oauth: string } ? K : never }[WireCode];

/** The RFC 6749 section 5.2 `error` the OAuth endpoints give a failure. */
export function oauthErrorOf(code: OAuthAnswered): string {
  return WIRE_ERRORS[code].oauth;
}

/** Headers an answer to a failure needs. */
export function wireHeaders(code: WireCode): Record<string, string> {
  const declared: WireError = WIRE_ERRORS[code];
  return { ...declared.headers };
}

export type RegistrationErrorCode =
  /** The server was constructed without a usable name. */
  | "HUBMCP_INVALID_NAME"
  /** A tool, resource, template or prompt of that name or URI is already registered. */
  | "HUBMCP_DUPLICATE"
  /** The name is taken by a built-in (`get_job_result` once async tools exist). */
  | "HUBMCP_RESERVED_NAME"
  /** The handler or its options cannot be registered (bad name, schema, URI...). */
  | "HUBMCP_INVALID_DEFINITION";

/**
 * Thrown by `McpServer` registration methods. Still a TypeError, named so in messages and
 * stacks as before codes existed; `code` is what a program tests.
 */
export class RegistrationError extends TypeError {
  readonly code: RegistrationErrorCode;
  constructor(code: RegistrationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
