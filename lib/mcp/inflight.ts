// Requests of a session still being answered, so `notifications/cancelled` can find
// them (MCP basic/utilities/cancellation): the handler's signal aborts and the answer is
// dropped. Session-less requests are not tracked: nothing could name them later.
import type { Session } from "../session/session.ts";
import type { RequestId } from "../util/jsonrpc.ts";

/** One running request. Its AbortController is made only when someone reads `signal`. */
export class InFlightCall {
  readonly #table: Map<RequestId, InFlightCall>;
  readonly #id: RequestId;
  readonly #outer: () => AbortSignal | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: Error | undefined;

  constructor(table: Map<RequestId, InFlightCall>, id: RequestId, outer: () => AbortSignal | undefined) {
    this.#table = table;
    this.#id = id;
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
      const outer = this.#outer();
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
    if (this.#table.get(this.#id) === this) this.#table.delete(this.#id);
  }

}

export class InFlight {
  /** Only sessions with running requests have a table, so idle sessions cost nothing here. */
  readonly #bySession = new WeakMap<Session, Map<RequestId, InFlightCall>>();

  /** Tracks a request of `session`; `outer` yields the transport's signal when asked. */
  begin(session: Session, id: RequestId, outer: () => AbortSignal | undefined): InFlightCall {
    let table = this.#bySession.get(session);
    if (!table) this.#bySession.set(session, (table = new Map()));
    const call = new InFlightCall(table, id, outer);
    // A reused id replaces the older entry: a later cancel can only mean the newest.
    table.set(id, call);
    return call;
  }

  /** Ends tracking of `call`; drops the session's table once nothing runs. */
  end(session: Session, call: InFlightCall): void {
    call.end();
    if (this.#bySession.get(session)?.size === 0) this.#bySession.delete(session);
  }

  /** Cancels the running request `id` of `session`; false when none matches. */
  cancel(session: Session, id: RequestId): boolean {
    const call = this.#bySession.get(session)?.get(id);
    if (!call) return false;
    call.cancel();
    return true;
  }

  /** Requests of `session` still running. */
  count(session: Session): number {
    return this.#bySession.get(session)?.size ?? 0;
  }
}
