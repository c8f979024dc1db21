// The one cancellation table of the relays: a caller's request in flight → the server it
// went to and the server's own id for it, so the caller's `notifications/cancelled` reaches
// that server under that id. hub_bridge keeps a `Calls` (./relay.ts); the hub connector's
// store-backed sessions keep their in-flight links instead (a session may move between
// replicas, gateway/hub-connector/relay.ts); both are read through ./route-moves.ts
// `notifyServers`, which decides who hears a caller's notification.
import type { Params, RequestId } from "../util/jsonrpc.ts";

export interface Call<S> {
  readonly abort: AbortController;
  server: S | null;
  serverId: RequestId | null;
}

/** The cancellation a server hears for a caller's: its own request id, and the caller's reason if any. */
export function serverCancellation(params: Params, serverId: RequestId): Params {
  return { requestId: serverId, ...(typeof params.reason === "string" ? { reason: params.reason } : {}) };
}

/** A request id as a table key: its JSON, so the number 1 and the string "1" stay apart. */
export const requestKey = (id: unknown): string => JSON.stringify(id);

/** Where a caller's request in flight went: the server, and the server's own id for it. */
export interface InFlight<S> {
  server: S;
  serverId: RequestId;
}

/**
 * The server to tell of a caller's cancellation, and what it hears; `find` looks the
 * caller's request id (as JSON) up in the relay's table of requests in flight. Undefined
 * for a request not in flight there.
 */
export function cancellation<S>(params: Params, find: (key: string) => InFlight<S> | undefined): { server: S; notice: Params } | undefined {
  const found = find(requestKey(params.requestId));
  return found && { server: found.server, notice: serverCancellation(params, found.serverId) };
}

export class Calls<S> {
  readonly #calls = new Map<string, Call<S>>();

  open(callerId: RequestId): Call<S> {
    const call: Call<S> = { abort: new AbortController(), server: null, serverId: null };
    this.#calls.set(requestKey(callerId), call);
    return call;
  }

  /** The call is answered; a later one under the same id is left alone. */
  close(callerId: RequestId, call: Call<S>): void {
    if (this.#calls.get(requestKey(callerId)) === call) this.#calls.delete(requestKey(callerId));
  }

  /** The caller's request under this key (`requestKey`), while it runs. */
  call(key: string): Call<S> | undefined {
    return this.#calls.get(key);
  }

  /** Where the caller's request under this key went, once it reached a server; undefined before, and when not running. */
  inFlight(key: string): InFlight<S> | undefined {
    const call = this.#calls.get(key);
    return call && call.server !== null && call.serverId !== null ? { server: call.server, serverId: call.serverId } : undefined;
  }

  abortAll(reason: Error): void {
    for (const call of this.#calls.values()) call.abort.abort(reason);
  }
}
