// Errors a program can tell apart by `code` rather than by matching its prose, the way
// undici and Node name theirs.
//
// The rule, for every error class in lib (spec/util/error-codes.spec.ts reads the source):
// - `code` is a JS-level code of the form HUBMCP_<WHAT>, one set per class, never shared;
// - a code a client sees on the wire is contract (interface.md, RFC 6749, JSON-RPC) and is
//   kept in a field of its own beside `code`: GatewayError.error (the gateway's JSON
//   `{"error": ...}`), ConnectorRpcError/BridgeRpcError.rpcCode, ToolRpcError.body;
// - the only exceptions are classes whose `code` is a wire code by definition: JsonRpcError
//   (public API, the JSON-RPC error code) and the browser console's RpcError.

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
