// Server-to-client requests (elicitation, sampling, roots): ids, the pending table per
// session, timeouts, and matching the client's answers. An answer settles only a request
// of the session it arrives on, so one client can never answer for another.
import { randomUUID } from "node:crypto";
import type { Session } from "../session/session.ts";
import { isRecord } from "../util/guards.ts";
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../util/jsonrpc.ts";

/** Why a server-to-client request did not get a usable answer. */
export type ClientRequestFailure =
  /** The client did not declare the capability, or no session exists to ask through. */
  | "HUBMCP_CLIENT_UNSUPPORTED"
  | "HUBMCP_CLIENT_TIMEOUT"
  | "HUBMCP_CLIENT_SESSION_ENDED"
  | "HUBMCP_CLIENT_CANCELLED"
  | "HUBMCP_CLIENT_UNDELIVERABLE"
  /** The client answered with a JSON-RPC error. */
  | "HUBMCP_CLIENT_ERROR"
  /** The answer does not have the shape the request asked for. */
  | "HUBMCP_CLIENT_INVALID_ANSWER";

export class ClientRequestError extends Error {
  readonly code: ClientRequestFailure;
  /** The JSON-RPC error code when the client answered with an error. */
  readonly rpcCode: number | undefined;
  constructor(code: ClientRequestFailure, message: string, rpcCode?: number) {
    super(message);
    this.name = "ClientRequestError";
    this.code = code;
    this.rpcCode = rpcCode;
  }
}

export interface ClientRequestOptions {
  /** Milliseconds to wait for the answer. */
  timeoutMs: number;
  /** Stops waiting when the call that asked is cancelled. */
  signal?: AbortSignal;
}

/** Delivers one message; false means no stream could take it. */
// biome-ignore lint/suspicious/noConfusingVoidType: a transport's send may return nothing (void) or whether it delivered
export type Send = (message: JsonRpcMessage) => boolean | void;

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(err: ClientRequestError): void;
}

export class ClientRequests {
  readonly #pending = new Map<Session, Map<RequestId, Pending>>();
  /** Sessions whose end already drops their pending requests. */
  readonly #hooked = new WeakSet<Session>();

  /** Requests waiting for an answer, over every session. */
  get size(): number {
    let n = 0;
    for (const table of this.#pending.values()) n += table.size;
    return n;
  }

  /** Sends `method` to the client of `session` and resolves with the `result` it answers. */
  request(session: Session, send: Send, method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<Record<string, unknown>> {
    const id = `server-${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) return reject(new ClientRequestError("HUBMCP_CLIENT_CANCELLED", `${method} was cancelled`));
      const pendingTable = this.#tableFor(session);
      // A request the server stops waiting for is withdrawn, so the client can close its form
      // (MCP basic/utilities/cancellation: the sender SHOULD notify on timeout too).
      const withdraw = (err: ClientRequestError) =>
        settle(() => {
          try {
            send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: err.message } });
          } catch {
            // The stream is gone; there is nobody left to tell.
          }
          reject(err);
        });
      const onAbort = () => withdraw(new ClientRequestError("HUBMCP_CLIENT_CANCELLED", `${method} was cancelled`));
      const timer = setTimeout(
        () => withdraw(new ClientRequestError("HUBMCP_CLIENT_TIMEOUT", `The client did not answer ${method} within ${options.timeoutMs / 1000} s`)),
        options.timeoutMs,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        pendingTable.delete(id);
        if (pendingTable.size === 0 && this.#pending.get(session) === pendingTable) this.#pending.delete(session);
        fn();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      pendingTable.set(id, {
        resolve: (result) => settle(() => resolve(result)),
        reject: (err) => settle(() => reject(err)),
      });
      // biome-ignore lint/suspicious/noConfusingVoidType: what Send returned
      let delivered: boolean | void;
      try {
        delivered = send({ jsonrpc: "2.0", id, method, params });
      } catch {
        delivered = false;
      }
      if (delivered === false) {
        pendingTable.get(id)?.reject(new ClientRequestError("HUBMCP_CLIENT_UNDELIVERABLE", `No open stream to the client could carry ${method}`));
      }
    });
  }

  #tableFor(session: Session): Map<RequestId, Pending> {
    let table = this.#pending.get(session);
    if (!table) this.#pending.set(session, (table = new Map()));
    if (!this.#hooked.has(session)) {
      this.#hooked.add(session);
      session.onEnd(() => {
        const left = this.#pending.get(session);
        this.#pending.delete(session);
        const err = new ClientRequestError("HUBMCP_CLIENT_SESSION_ENDED", "The session ended before the client answered");
        for (const p of [...(left?.values() ?? [])]) p.reject(err);
      });
    }
    return table;
  }

  /**
   * Settles the request `response` answers. An unknown id, a duplicate answer or an answer
   * from another session changes nothing; returns whether it settled a request.
   */
  settle(response: JsonRpcResponse, session: Session | null): boolean {
    if (!session) return false;
    const pending = this.#pending.get(session)?.get(response.id as RequestId);
    if (!pending) return false;
    if ("error" in response) {
      const code = isRecord(response.error) && typeof response.error.code === "number" ? response.error.code : undefined;
      pending.reject(new ClientRequestError("HUBMCP_CLIENT_ERROR", `The client answered with an error${code === undefined ? "" : ` (${code})`}`, code));
    } else if (isRecord(response.result)) {
      pending.resolve(response.result);
    } else {
      pending.reject(new ClientRequestError("HUBMCP_CLIENT_INVALID_ANSWER", "The client's answer carried no result object"));
    }
    return true;
  }
}
