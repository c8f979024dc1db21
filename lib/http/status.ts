// Outcomes of the protocol core and the HTTP kit's coded failures, as HTTP statuses: read from
// the error model's declarations (lib/util/errors.ts), never decided here. Nothing under
// lib/mcp picks a status.
import type { Outcome, Refusal } from "../mcp/outcome.ts";
import { REFUSAL_STATUS, WIRE_OF, wireHeaders, wireStatus } from "../util/errors.ts";
import type { BodyErrorCode } from "./body.ts";

const REFUSED: Record<Refusal, number> = REFUSAL_STATUS;

export function httpStatus(outcome: Outcome): number {
  if (outcome.kind === "reply") return 200;
  if (outcome.kind === "accepted") return 202;
  return REFUSED[outcome.refusal];
}

/** What a JSON error body names a coded failure (the gateway's `{"error": …}`): the wire keeps its lowercase codes. */
export function wireCodeOf<C extends BodyErrorCode>(code: C): (typeof WIRE_OF)[C] {
  return WIRE_OF[code];
}

export function statusOf(code: BodyErrorCode): number {
  return wireStatus(WIRE_OF[code]);
}

/** Headers an answer to a coded failure needs: a body cut short of its end leaves the connection unusable. */
export function headersOf(code: BodyErrorCode): Record<string, string> {
  return wireHeaders(WIRE_OF[code]);
}
