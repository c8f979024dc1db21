// The error codes MCP 2026-07-28 adds, with the HTTP status each one travels under. Pure:
// the transport picks the status with `httpStatusOf`, the dispatcher builds the body.

/** The JSON-RPC codes of the 2026-07-28 revision (reserved range -32020..-32099). */
export const Era2026Code = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  MethodNotFound: -32601,
  InvalidParams: -32602,
} as const;

export interface Era2026ErrorBody {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Client capabilities in the wire form: `{ sampling: {} }`, `{ extensions: { "x/y": {} } }`. */
export type CapabilityMap = Record<string, unknown>;

export const headerMismatch = (message: string): Era2026ErrorBody => ({
  code: Era2026Code.HeaderMismatch,
  message: `Header mismatch: ${message}`,
});

/** -32021: `required` is a ClientCapabilities object naming what is missing, never a list of names. */
export const missingClientCapability = (required: CapabilityMap): Era2026ErrorBody => ({
  code: Era2026Code.MissingRequiredClientCapability,
  message: "Missing required client capability",
  data: { requiredCapabilities: required },
});

/** -32022: `requested` is echoed only when it is a short plain string, so errors stay bounded. */
export const unsupportedVersion = (supported: readonly string[], requested: unknown): Era2026ErrorBody => ({
  code: Era2026Code.UnsupportedProtocolVersion,
  message: "Unsupported protocol version",
  data: { supported: [...supported], requested: printable(requested) },
});

export const methodNotFound = (): Era2026ErrorBody => ({ code: Era2026Code.MethodNotFound, message: "Method not found" });

export const invalidParams = (message: string, data?: Record<string, unknown>): Era2026ErrorBody =>
  data === undefined ? { code: Era2026Code.InvalidParams, message } : { code: Era2026Code.InvalidParams, message, data };

/** Resource not found is -32602 with the URI in `data` in this revision (-32002 is retired). */
export const resourceNotFound = (uri: string): Era2026ErrorBody =>
  invalidParams("Resource not found", { uri: printable(uri, 2048) });

/**
 * The HTTP status a 2026-07-28 error travels under: the protocol's own rejections are 400,
 * an unknown or removed method 404; anything else rides a 200 like any JSON-RPC error.
 */
export function httpStatusOf(code: number): number {
  switch (code) {
    case Era2026Code.HeaderMismatch:
    case Era2026Code.MissingRequiredClientCapability:
    case Era2026Code.UnsupportedProtocolVersion:
      return 400;
    case Era2026Code.MethodNotFound:
      return 404;
    default:
      return 200;
  }
}

/** A client-supplied string fit to echo back: plain printable ASCII and bounded, else a placeholder. */
export function printable(value: unknown, max = 128): string {
  return typeof value === "string" && value.length <= max && /^[\x20-\x7e]*$/.test(value) ? value : "(unprintable)";
}
