// One 2026-07-28 request that may need input, end to end on plain data: validate the
// client's answers, open and verify its requestState, replay the handler with every answer
// so far, and either finish or seal the next state. The dispatcher supplies the handler
// (wired so that ctx.elicit/sample/listRoots call `round.ask`) and writes the outcome.
import { invalidParams, type CapabilityMap, type StatelessErrorBody } from "./errors.ts";
import { inputRequiredResult, mergeAnswers, MissingCapabilityError, parseInputResponses, ReplayRound, type ReplayState } from "./input-required.ts";
import { paramsDigest, type RequestStateCodec, type StateBinding } from "./request-state.ts";
import { isRecord } from "../../util/guards.ts";

export interface RoundRequest {
  method: string;
  params: Record<string, unknown>;
  clientCapabilities: CapabilityMap;
  /** Who is calling, when the transport authenticated them; binds the state to them. */
  principal?: string;
}

export type RoundResult<T> =
  | { kind: "complete"; value: T }
  /** The wire result to send as is: `resultType: "input_required"`, questions, sealed state. */
  | { kind: "input_required"; result: Record<string, unknown> }
  | { kind: "error"; error: StatelessErrorBody };

export function bindingOf(request: RoundRequest): StateBinding {
  const binding: StateBinding = { method: request.method, digest: paramsDigest(request.params) };
  if (request.principal !== undefined) binding.principal = request.principal;
  return binding;
}

/**
 * Serves one round. Errors of the handler other than a missing capability are rethrown for
 * the caller to report as it reports any handler failure (a tool error result, say).
 */
export async function runRound<T>(codec: RequestStateCodec, request: RoundRequest, handler: (round: ReplayRound) => Promise<T>): Promise<RoundResult<T>> {
  const parsed = parseInputResponses(request.params.inputResponses);
  if (!parsed.ok) return { kind: "error", error: parsed.error };
  const binding = bindingOf(request);
  let recorded: Record<string, unknown> | undefined;
  const token = request.params.requestState;
  if (token !== undefined) {
    const opened = codec.open<ReplayState>(token, binding);
    // One message whatever the reason: the client learns nothing about which check failed.
    if (!opened.ok || !isRecord(opened.state) || !isRecord(opened.state.answers)) {
      return { kind: "error", error: invalidParams("Invalid params: requestState is invalid or expired") };
    }
    recorded = opened.state.answers;
  }
  const round = new ReplayRound(mergeAnswers(recorded, parsed.responses), request.clientCapabilities);
  try {
    const outcome = await round.run(() => handler(round));
    if (outcome.kind === "complete") return outcome;
    const state: ReplayState = { answers: outcome.answers };
    return { kind: "input_required", result: inputRequiredResult(outcome.inputRequests, codec.seal(state, binding)) };
  } catch (err) {
    if (err instanceof MissingCapabilityError) return { kind: "error", error: err.toBody() };
    throw err;
  }
}
