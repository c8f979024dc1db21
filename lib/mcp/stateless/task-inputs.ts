// Questions a running task is waiting on (tasks extension, `input_required` status). Unlike
// a replayed round, the handler of a task stays alive: `ask` parks a promise, `tasks/get`
// shows the pending requests, and `tasks/update` resolves them, in any order and in parts.
import { invalidParams, type StatelessErrorBody } from "./errors.ts";
import { clientSupports, capabilityFor, MissingCapabilityError, type InputRequest } from "./input-required.ts";
import type { CapabilityMap } from "./errors.ts";

interface Parked {
  request: InputRequest;
  resolve(answer: unknown): void;
  reject(err: Error): void;
}

export class TaskInputs {
  readonly #caps: CapabilityMap;
  readonly #parked = new Map<string, Parked>();
  readonly #onChange: () => void;
  #next = 0;
  #closed: Error | null = null;

  /** `onChange` runs whenever the set of pending questions changes (status input_required ⇄ working). */
  constructor(clientCapabilities: CapabilityMap, onChange: () => void = () => {}) {
    this.#caps = clientCapabilities;
    this.#onChange = onChange;
  }

  /** Parks a question under `key` (or a fresh opaque one) until `answer` or `close`. */
  ask(request: InputRequest, key?: string): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (!clientSupports(this.#caps, request)) return Promise.reject(new MissingCapabilityError(capabilityFor(request)));
    const id = key ?? `input-${++this.#next}`;
    if (this.#parked.has(id)) return Promise.reject(new TypeError(`Input key ${id} is already pending`));
    return new Promise((resolve, reject) => {
      this.#parked.set(id, { request, resolve, reject });
      this.#onChange();
    });
  }

  get waiting(): boolean {
    return this.#parked.size > 0;
  }

  /** The still-unanswered questions, for `tasks/get`. */
  pending(): Record<string, InputRequest> {
    return Object.fromEntries([...this.#parked].map(([key, parked]) => [key, parked.request]));
  }

  /**
   * Delivers `tasks/update` answers: each pending key present is resolved and removed; keys
   * that are not pending are ignored. A non-object answer is refused before any is applied.
   */
  answer(responses: unknown): { ok: true; answered: string[] } | { ok: false; error: StatelessErrorBody } {
    if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
      return { ok: false, error: invalidParams("Invalid params: inputResponses must be an object") };
    }
    const entries = Object.entries(responses as Record<string, unknown>).filter(([key]) => this.#parked.has(key));
    if (entries.some(([, value]) => typeof value !== "object" || value === null || Array.isArray(value))) {
      return { ok: false, error: invalidParams("Invalid params: each input response must be an object") };
    }
    for (const [key, value] of entries) {
      const parked = this.#parked.get(key);
      this.#parked.delete(key);
      parked?.resolve(value);
    }
    if (entries.length > 0) this.#onChange();
    return { ok: true, answered: entries.map(([key]) => key) };
  }

  /** Ends every wait with `reason` (the task was cancelled or expired); later asks reject at once. */
  close(reason: Error): void {
    this.#closed = reason;
    const parked = [...this.#parked.values()];
    this.#parked.clear();
    for (const p of parked) p.reject(reason);
    if (parked.length > 0) this.#onChange();
  }
}
