// The one table from protocol outcomes to HTTP statuses (MCP basic/transports; 2026-07-28
// "Error Handling" for the revision's own rejections), and the HTTP kit's coded failures.
// Nothing under lib/mcp picks a status.
import type { Outcome, Refusal } from "../mcp/outcome.ts";
import type { BodyErrorCode } from "./body.ts";

const REFUSED: Record<Refusal, number> = {
  malformed: 400,
  "unsupported-version": 400,
  "bad-envelope": 400,
  "header-mismatch": 400,
  "missing-capability": 400,
  "unknown-method": 404,
  "internal-error": 500,
};

export function httpStatus(outcome: Outcome): number {
  if (outcome.kind === "reply") return 200;
  if (outcome.kind === "accepted") return 202;
  return REFUSED[outcome.refusal];
}

/** The statuses of the HTTP kit's own coded failures. */
const CODED: Record<BodyErrorCode, number> = {
  HUBMCP_BODY_TOO_LARGE: 413,
  HUBMCP_BODY_NOT_JSON: 400,
  HUBMCP_BODY_ABORTED: 400,
};

/** What a JSON error body names a coded failure (the gateway's `{"error": …}`): the wire keeps its lowercase codes. */
const WIRE = {
  HUBMCP_BODY_TOO_LARGE: "body_too_large",
  HUBMCP_BODY_NOT_JSON: "body_not_json",
  HUBMCP_BODY_ABORTED: "body_aborted",
} as const satisfies Record<BodyErrorCode, string>;

export function wireCodeOf<C extends BodyErrorCode>(code: C): (typeof WIRE)[C] {
  return WIRE[code];
}

export function statusOf(code: BodyErrorCode): number {
  return CODED[code];
}

/** Headers an answer to a coded failure needs: a body cut short of its end leaves the connection unusable. */
export function headersOf(code: BodyErrorCode): Record<string, string> {
  return code === "HUBMCP_BODY_TOO_LARGE" ? { connection: "close" } : {};
}
