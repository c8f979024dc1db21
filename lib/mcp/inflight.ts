// Requests of a session still being answered, so `notifications/cancelled` can find
// them (MCP basic/utilities/cancellation): the handler's signal aborts and the answer is
// dropped. Session-less requests are not tracked: nothing could name them later.
import type { Session } from "../session/session.ts";
import type { RequestId } from "../util/jsonrpc.ts";

/** Where a call's transport signal comes from (an Exchange), read only when someone asks. */
export interface SignalSource {
  readonly signal?: AbortSignal;
}

/** One running request. Its AbortController is made only when someone reads `signal`. */
export class InFlightCall {
  readonly id: RequestId;
  readonly #owner: InFlight;
  readonly #session: Session;
  readonly #outer: SignalSource;
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: Error | undefined;

  constructor(owner: InFlight, session: Session, id: RequestId, outer: SignalSource) {
    this.#owner = owner;
    this.#session = session;
    this.id = id;
    this.#outer = outer;
  }

  /** True once the client cancelled: the answer must not be sent. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Aborts on cancellation, and whenever the transport's own signal aborts. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const ac = (this.#controller = new AbortController());
      if (this.#cancelled) ac.abort(this.#reason);
      const outer = this.#outer.signal;
      if (outer) {
        if (outer.aborted) ac.abort(outer.reason);
        else outer.addEventListener("abort", () => ac.abort(outer.reason), { once: true });
      }
    }
    return this.#controller.signal;
  }

  cancel(reason = "The client cancelled the request"): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = new Error(reason);
    this.#controller?.abort(this.#reason);
  }

  end(): void {
    this.#owner.end(this.#session, this);
  }
}

/**
 * A session's running requests: the one call itself while it runs alone (the common case,
 * one request at a time), a table once several overlap.
 */
type Running = InFlightCall | Map<RequestId, InFlightCall>;

export class InFlight {
  /** Only sessions with running requests have an entry, so idle sessions cost nothing here. */
  readonly #bySession = new WeakMap<Session, Running>();

  /** Tracks a request of `session`; `outer` yields the transport's signal when asked. */
  begin(session: Session, id: RequestId, outer: SignalSource): InFlightCall {
    const call = new InFlightCall(this, session, id, outer);
    const running = this.#bySession.get(session);
    // A reused id replaces the older entry: a later cancel can only mean the newest.
    if (running === undefined || (running instanceof InFlightCall && running.id === id)) this.#bySession.set(session, call);
    else if (running instanceof InFlightCall)
      this.#bySession.set(
        session,
        new Map([
          [running.id, running],
          [id, call],
        ]),
      );
    else running.set(id, call);
    return call;
  }

  /** Ends tracking of `call`; drops the session's entry once nothing runs. */
  end(session: Session, call: InFlightCall): void {
    const running = this.#bySession.get(session);
    if (running === call) this.#bySession.delete(session);
    else if (running instanceof Map) {
      if (running.get(call.id) === call) running.delete(call.id);
      if (running.size === 0) this.#bySession.delete(session);
    }
  }

  /** Cancels the running request `id` of `session`; false when none matches. */
  cancel(session: Session, id: RequestId): boolean {
    const running = this.#bySession.get(session);
    const call = running instanceof Map ? running.get(id) : running?.id === id ? running : undefined;
    if (!call) return false;
    call.cancel();
    return true;
  }

  /** Requests of `session` still running. */
  count(session: Session): number {
    const running = this.#bySession.get(session);
    return running === undefined ? 0 : running instanceof Map ? running.size : 1;
  }
}
