// The one table from protocol outcomes to HTTP statuses (MCP basic/transports; 2026-07-28
// "Error Handling" for the revision's own rejections). Nothing under lib/mcp picks a status.
import type { Outcome, Refusal } from "../mcp/outcome.ts";

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
