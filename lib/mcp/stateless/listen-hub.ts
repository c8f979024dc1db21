// The open `subscriptions/listen` streams of MCP 2026-07-28: each one is a request that
// stays unanswered while the server sends it the change notifications its filter asks for.
// The registry feeds `notify`; a stream ends when its client goes away or on close().
import type { Call } from "../exchange.ts";
import type { Result } from "../methods/types.ts";
import { JsonRpcError } from "../../util/jsonrpc.ts";
import { acknowledgement, parseListenFilter, tagged, wants, type ListenFilter } from "./listen.ts";

interface Listener {
  filter: ListenFilter;
  call: Call;
  end(): void;
}

export class ListenHub {
  readonly #listeners = new Set<Listener>();

  /** Acknowledges the stream at once, then holds the request open until the client leaves. */
  listen(params: Record<string, unknown>, call: Call): Promise<Result> {
    const parsed = parseListenFilter(params);
    if (!parsed.ok) throw new JsonRpcError(parsed.error.code, parsed.error.message, parsed.error.data);
    const { filter } = parsed;
    return new Promise((resolve) => {
      const signal = call.signal;
      const listener: Listener = {
        filter,
        call,
        end: () => {
          if (!this.#listeners.delete(listener)) return;
          signal?.removeEventListener("abort", listener.end);
          resolve({});
        },
      };
      this.#listeners.add(listener);
      if (!call.send(acknowledgement(call.id, filter)) || signal?.aborted) return listener.end();
      signal?.addEventListener("abort", listener.end, { once: true });
    });
  }

  /** A change notification of the registry, to every stream whose filter wants it. */
  notify(method: string, params?: Record<string, unknown>): void {
    for (const listener of this.#listeners) {
      if (wants(listener.filter, method, params) && !listener.call.send(tagged(listener.call.id, method, params))) listener.end();
    }
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Answers every open stream, ending it (server shutdown). */
  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.end();
  }
}
