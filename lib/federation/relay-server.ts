// What a relay needs of each server it relays to (./relay.ts): hub_bridge's gateway endpoint
// (bridge/upstream.ts) is one. A server's own messages that are no answer of ours (its
// notifications, its requests to the caller) go to the relay's `fromServer`.
import type { JsonRpcResponse, Params, RequestId } from "../util/jsonrpc.ts";
import type { Labelled } from "./expose.ts";

export type Outcome = { result: unknown } | { error: unknown };

export interface RelayServer {
  /** Its name prefix in the namespace, and in ids of its requests and tasks. */
  readonly label: string;
  readonly target: Labelled;
  /** Its initialize result once started, null before (or while it is down). */
  readonly initResult: Record<string, unknown> | null;
  /** Starts its session with the caller's initialize params; resolves with its initialize result. */
  start(params: Params): Promise<Record<string, unknown>>;
  /** One request; `onId` hears the server's own id for it, so a cancellation can name it. */
  request(method: string, params: Params | undefined, options: { signal?: AbortSignal; onId?: (id: RequestId) => void }): Promise<JsonRpcResponse>;
  /** A notification (best effort). */
  notify(method: string, params?: Params): Promise<void>;
  /** Answers a request the server sent (elicitation, sampling, roots, ping). */
  answer(id: RequestId, outcome: Outcome): Promise<void>;
}
