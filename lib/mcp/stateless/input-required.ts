// Multi-round-trip input (MCP 2026-07-28, "MRTR") by replay: a handler written against
// `ctx.elicit`/`sample`/`listRoots` runs from the top on every round. Questions already
// answered (recorded in the sealed requestState or sent in `inputResponses`) are answered
// at once; the first round that asks something new ends with `input_required`, listing
// every question asked concurrently. Pure promise logic: no transport, no clock.
import { invalidParams, missingClientCapability, type CapabilityMap, type StatelessErrorBody } from "./errors.ts";
import { isRecord } from "../../util/guards.ts";

export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";

export interface InputRequest {
  method: InputMethod;
  params: Record<string, unknown>;
}

/** What requestState carries between rounds: the answers so far, by input key. */
export interface ReplayState {
  answers: Record<string, unknown>;
}

export type RoundOutcome<T> =
  | { kind: "complete"; value: T }
  | { kind: "input_required"; inputRequests: Record<string, InputRequest>; answers: Record<string, unknown> };

/** The methods that may answer with `input_required`; every other one must not. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"]);

/**
 * Validates `params.inputResponses`: absent is no answers; anything but an object of objects
 * is a protocol error (-32602). Unknown keys are kept but never looked up, so they are ignored.
 */
export function parseInputResponses(
  value: unknown,
): { ok: true; responses: Record<string, Record<string, unknown>> } | { ok: false; error: StatelessErrorBody } {
  if (value === undefined) return { ok: true, responses: {} };
  if (!isRecord(value)) return { ok: false, error: invalidParams("Invalid params: inputResponses must be an object") };
  for (const answer of Object.values(value)) {
    if (!isRecord(answer)) return { ok: false, error: invalidParams("Invalid params: each input response must be an object") };
  }
  return { ok: true, responses: value as Record<string, Record<string, unknown>> };
}

/** The client capability an input request needs, in ClientCapabilities form. */
export function capabilityFor(request: InputRequest): CapabilityMap {
  switch (request.method) {
    case "elicitation/create":
      return request.params.mode === "url" ? { elicitation: { url: {} } } : { elicitation: {} };
    case "sampling/createMessage":
      return { sampling: {} };
    case "roots/list":
      return { roots: {} };
  }
}

/**
 * Whether the client declared what `request` needs. A bare `elicitation: {}` means form mode
 * (the 2025-11-25 rule, kept); URL mode needs `elicitation.url`.
 */
export function clientSupports(caps: CapabilityMap, request: InputRequest): boolean {
  switch (request.method) {
    case "elicitation/create": {
      const elicitation = caps.elicitation;
      if (!isRecord(elicitation)) return false;
      if (request.params.mode === "url") return isRecord(elicitation.url);
      return Object.keys(elicitation).length === 0 || isRecord(elicitation.form);
    }
    case "sampling/createMessage":
      return isRecord(caps.sampling);
    case "roots/list":
      return isRecord(caps.roots);
  }
}

/** Thrown by `ask` when the client lacks the capability; escaping the handler, it becomes -32021. */
export class MissingCapabilityError extends Error {
  readonly code = "HUBMCP_MISSING_CAPABILITY";
  readonly required: CapabilityMap;
  constructor(required: CapabilityMap) {
    super("The client did not declare a capability this call needs");
    this.name = "MissingCapabilityError";
    this.required = required;
  }
  toBody(): StatelessErrorBody {
    return missingClientCapability(this.required);
  }
}

/**
 * What a question still parked when its round ended rejects with: the abandoned handler
 * settles, and nothing reports this as the handler's failure (the round answered already).
 */
export class RoundEndedError extends Error {
  readonly code = "HUBMCP_ROUND_ENDED";
  constructor() {
    super("The round ended with input_required");
    this.name = "RoundEndedError";
  }
}

const KIND_PREFIX: Record<InputMethod, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/**
 * One round of a replayed handler. `ask` answers from `answers` or parks the question; keys
 * are the caller's when given, else `<kind>-<n>` by call order, which is stable as long as
 * the handler asks in the same order on every round (see the limits in the design note).
 * Parked questions are refused once the round has ended, so the abandoned handler settles.
 */
export class ReplayRound {
  readonly #answers: Record<string, unknown>;
  readonly #caps: CapabilityMap;
  readonly #pending = new Map<string, InputRequest>();
  readonly #refusals: Array<(reason: Error) => void> = [];
  readonly #counts = new Map<InputMethod, number>();
  #onPending: (() => void) | null = null;
  #ended: RoundEndedError | null = null;
  /** A programming error in the handler's asking: it fails the round even though a question waits. */
  #misuse: TypeError | null = null;

  constructor(answers: Record<string, unknown>, clientCapabilities: CapabilityMap) {
    this.#answers = { ...answers };
    this.#caps = clientCapabilities;
  }

  keyFor(method: InputMethod, explicit?: string): string {
    const n = (this.#counts.get(method) ?? 0) + 1;
    this.#counts.set(method, n);
    return explicit ?? `${KIND_PREFIX[method]}-${n}`;
  }

  /** Whether the next `ask` of `method` (under `explicitKey`) would be answered from this round's answers. */
  answered(method: InputMethod, explicitKey?: string): boolean {
    const key = explicitKey ?? `${KIND_PREFIX[method]}-${(this.#counts.get(method) ?? 0) + 1}`;
    return Object.hasOwn(this.#answers, key);
  }

  /** The answer for `key` if there is one; otherwise a promise that waits for the round's end and is then refused. */
  ask(request: InputRequest, explicitKey?: string): Promise<unknown> {
    const key = this.keyFor(request.method, explicitKey);
    if (!clientSupports(this.#caps, request)) return Promise.reject(new MissingCapabilityError(capabilityFor(request)));
    if (Object.hasOwn(this.#answers, key)) return Promise.resolve(this.#answers[key]);
    if (this.#ended) return Promise.reject(this.#ended);
    if (this.#pending.has(key)) throw (this.#misuse = new TypeError(`Input key ${key} is asked twice in one round`));
    this.#pending.set(key, request);
    this.#onPending?.();
    const parked = new Promise<never>((_resolve, reject) => this.#refusals.push(reject));
    // A handler may drop a question it asked (a failed Promise.all): its refusal is nobody's error.
    parked.catch(() => {});
    return parked;
  }

  get pending(): ReadonlyMap<string, InputRequest> {
    return this.#pending;
  }

  /** Answers that were used or carried: what the next round's requestState records. */
  get answers(): Record<string, unknown> {
    return { ...this.#answers };
  }

  /**
   * Runs `handler` to its end or until it waits on unanswered questions. Questions asked in
   * the same synchronous turn as the first unanswered one (Promise.all of several asks) are
   * gathered into one result: the round ends in the microtask queued by that first question,
   * with no timer, so which questions a round lists depends on the handler alone. A question
   * asked later (after another await) comes in the next round.
   */
  run<T>(handler: () => Promise<T>): Promise<RoundOutcome<T>> {
    return new Promise<RoundOutcome<T>>((resolve, reject) => {
      let done = false;
      const finish = (outcome: RoundOutcome<T> | Error): void => {
        if (done) return;
        done = true;
        this.#onPending = null;
        this.#end();
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      this.#onPending = () => {
        this.#onPending = null;
        queueMicrotask(() => finish(this.#misuse ?? { kind: "input_required", inputRequests: Object.fromEntries(this.#pending), answers: this.answers }));
      };
      handler().then(
        (value) => finish({ kind: "complete", value }),
        (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
      );
    });
  }

  /** The round is over: questions still parked are refused (nobody answers them in this round). */
  #end(): void {
    this.#ended = new RoundEndedError();
    for (const refuse of this.#refusals.splice(0)) refuse(this.#ended);
  }
}

/**
 * The answers a retry starts from: those recorded in its requestState, then the client's
 * `inputResponses` for keys not yet recorded (a recorded answer is never replaced).
 */
export function mergeAnswers(recorded: Record<string, unknown> | undefined, responses: Record<string, unknown>): Record<string, unknown> {
  return { ...responses, ...(recorded ?? {}) };
}

/** The wire result of a round that needs input. */
export function inputRequiredResult(inputRequests: Record<string, InputRequest>, requestState?: string): Record<string, unknown> {
  const result: Record<string, unknown> = { resultType: "input_required", inputRequests };
  if (requestState !== undefined) result.requestState = requestState;
  return result;
}
