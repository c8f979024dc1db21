// The error codes MCP 2026-07-28 adds, with the HTTP status each one travels under. Pure:
// `refusalOf` names the refusal a code stands for; lib/http/status.ts picks the status.
import { ErrorCode } from "../../util/errors.ts";
import type { Refusal } from "../outcome.ts";

/** The JSON-RPC codes the 2026-07-28 revision answers with (declared in lib/util/errors.ts). */
export const StatelessCode = {
  HeaderMismatch: ErrorCode.HeaderMismatch,
  MissingRequiredClientCapability: ErrorCode.MissingRequiredClientCapability,
  UnsupportedProtocolVersion: ErrorCode.UnsupportedProtocolVersion,
  MethodNotFound: ErrorCode.MethodNotFound,
  InvalidParams: ErrorCode.InvalidParams,
} as const;

export interface StatelessErrorBody {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Client capabilities in the wire form: `{ sampling: {} }`, `{ extensions: { "x/y": {} } }`. */
export type CapabilityMap = Record<string, unknown>;

export const headerMismatch = (message: string): StatelessErrorBody => ({
  code: StatelessCode.HeaderMismatch,
  message: `Header mismatch: ${message}`,
});

/** -32021: `required` is a ClientCapabilities object naming what is missing, never a list of names. */
export const missingClientCapability = (required: CapabilityMap): StatelessErrorBody => ({
  code: StatelessCode.MissingRequiredClientCapability,
  message: "Missing required client capability",
  data: { requiredCapabilities: required },
});

/** -32022: `requested` is echoed only when it is a short plain string, so errors stay bounded. */
export const unsupportedVersion = (supported: readonly string[], requested: unknown): StatelessErrorBody => ({
  code: StatelessCode.UnsupportedProtocolVersion,
  message: "Unsupported protocol version",
  data: { supported: [...supported], requested: printable(requested) },
});

export const methodNotFound = (): StatelessErrorBody => ({ code: StatelessCode.MethodNotFound, message: "Method not found" });

export const invalidParams = (message: string, data?: Record<string, unknown>): StatelessErrorBody =>
  data === undefined ? { code: StatelessCode.InvalidParams, message } : { code: StatelessCode.InvalidParams, message, data };

/** Resource not found is -32602 with the URI in `data` in this revision (-32002 is retired). */
export const resourceNotFound = (uri: string): StatelessErrorBody => invalidParams("Resource not found", { uri: printable(uri, 2048) });

/**
 * The refusal a 2026-07-28 error stands for: the protocol's own rejections and an unknown or
 * removed method; undefined for anything else, which rides a plain reply like any JSON-RPC
 * error. lib/http/status.ts turns refusals into statuses.
 */
export function refusalOf(code: number): Refusal | undefined {
  switch (code) {
    case StatelessCode.HeaderMismatch:
      return "header-mismatch";
    case StatelessCode.MissingRequiredClientCapability:
      return "missing-capability";
    case StatelessCode.UnsupportedProtocolVersion:
      return "unsupported-version";
    case StatelessCode.MethodNotFound:
      return "unknown-method";
    default:
      return undefined;
  }
}

/** A client-supplied string fit to echo back: plain printable ASCII and bounded, else a placeholder. */
export function printable(value: unknown, max = 128): string {
  return typeof value === "string" && value.length <= max && /^[\x20-\x7e]*$/.test(value) ? value : "(unprintable)";
}
