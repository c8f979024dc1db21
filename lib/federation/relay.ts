// The relay: one MCP caller served by a set of servers (./relay-server.ts), hub_bridge's
// configuration of it being its gateway endpoints. It answers the caller's requests (routed
// by ./routes.ts over the one namespace, ./namespace.ts), takes the caller's notifications
// (heard as ./route-moves.ts decides for both relays: a cancellation by the server running
// that request, under the server's own id, ./calls.ts) and answers to servers' requests, and
// relays what servers send. With one server it is transparent: nothing renamed, ids as the
// server sent them. With several, a server's request reaches the caller as `<label>/<id>`
// (./ids.ts), so the caller's answer finds its server and id again by unprefixing, with no
// numbering table.
import type { Implementation } from "../mcp/stateless/results.ts";
import { isRecord } from "../util/guards.ts";
import type { JsonRpcRequest, JsonRpcResponse, Params, RequestId } from "../util/jsonrpc.ts";
import { ErrorCode, failure, isJsonRpcError, isRequestId, JsonRpcError, success } from "../util/jsonrpc.ts";
import { type Call, Calls, requestKey } from "./calls.ts";
import { unprefixId } from "./ids.ts";
import { exposeServerMessage } from "./moves.ts";
import { MergedNamespace } from "./namespace.ts";
import type { RelayServer } from "./relay-server.ts";
import { type Hearers, notifyServers } from "./route-moves.ts";
import { type RouteTarget, routeRequest } from "./routes.ts";
import { SEARCH_ORIGIN } from "./search.ts";

export interface RelayOptions<S extends RelayServer> {
  servers: readonly S[];
  /** To the caller, one message at a time. */
  send(message: unknown): void;
  /** The sentence the caller reads for a server's failure (each relay words its own). */
  explain(server: S, err: unknown): string;
  /** The relay's own name and version, in a merged initialize result. */
  serverInfo: Implementation;
}

export class Relay<S extends RelayServer> implements RouteTarget<S> {
  readonly servers: readonly S[];
  readonly single: boolean;
  readonly namespace: MergedNamespace;
  readonly calls = new Calls<S>();
  readonly serverInfo: Implementation;
  /** Servers that failed to start; when one comes back, the caller is told its lists changed. */
  readonly down = new Set<S>();
  readonly #byLabel: Map<string, S>;
  readonly #send: (message: unknown) => void;
  readonly #explain: (server: S, err: unknown) => string;
  /** Caller-facing ids of servers' requests still unanswered: refused at once should the caller go. */
  readonly #asked = new Set<string>();
  #refusal: unknown = null;

  constructor(options: RelayOptions<S>) {
    this.servers = options.servers;
    this.single = options.servers.length === 1;
    this.#byLabel = new Map(options.servers.map((s) => [s.label, s]));
    this.namespace = new MergedNamespace(this.#byLabel.keys(), [SEARCH_ORIGIN]);
    this.#send = options.send;
    this.#explain = options.explain;
    this.serverInfo = options.serverInfo;
  }

  server(label: string): S | undefined {
    return this.#byLabel.get(label);
  }

  /** The caller's request answered; null when the caller cancelled it (MCP asks for no answer then). Never throws. */
  async handle(request: JsonRpcRequest): Promise<JsonRpcResponse | null> {
    const call = this.calls.open(request.id);
    let reply: JsonRpcResponse;
    try {
      reply = success(request.id, await routeRequest(this, call, request));
    } catch (err) {
      if (isJsonRpcError(err)) reply = failure(request.id, err.toBody());
      else if (call.abort.signal.aborted) reply = failure(request.id, { code: ErrorCode.InternalError, message: "Request cancelled" });
      else reply = failure(request.id, { code: ErrorCode.InternalError, message: call.server ? this.explain(call.server, err) : "Internal error" });
    } finally {
      this.calls.close(request.id, call);
    }
    return call.abort.signal.aborted ? null : reply;
  }

  /**
   * A notification from the caller, to the servers that hear it (./route-moves.ts
   * `notifyServers`); a cancelled call stops here once its server was told, or at once when
   * it reached none yet.
   */
  notified(method: string, params: Params | undefined): Promise<void> {
    const call = method === "notifications/cancelled" ? this.calls.call(requestKey(params?.requestId)) : undefined;
    const told = notifyServers(this.#hearers, method, params);
    return call ? told.finally(() => call.abort.abort(new Error("cancelled"))) : told;
  }

  readonly #hearers: Hearers<S> = {
    started: () => this.servers.filter((s) => s.initResult),
    inFlight: (key) => this.calls.inFlight(key),
    notify: (server, method, params) => server.notify(method, params),
    // hub_bridge's calls all run in this process: one not running here was answered already.
    runsElsewhere: false,
  };

  /** The caller's answer to a server's request: to that server, under its own id. */
  answered(response: JsonRpcResponse): void {
    if (!this.#asked.delete(requestKey(response.id))) return;
    const origin = this.#origin(response.id);
    if (origin) void origin.server.answer(origin.id, "error" in response ? { error: response.error } : { result: response.result });
  }

  /** From now on the caller cannot answer: servers' requests, those waiting and those to come, get `error` at once. */
  refuseServerRequests(error: unknown): void {
    this.#refusal = error;
    for (const key of this.#asked) {
      const origin = this.#origin(JSON.parse(key));
      if (origin) void origin.server.answer(origin.id, { error });
    }
    this.#asked.clear();
  }

  /** A server's notification or request, as the caller sees it. */
  fromServer(server: S, message: Record<string, unknown>): void {
    const method = message.method;
    if (typeof method !== "string") return;
    if (isRequestId(message.id)) {
      if (method === "ping") return void server.answer(message.id, { result: {} });
      if (this.#refusal) return void server.answer(message.id, { error: this.#refusal });
    }
    // With one server nothing is renamed: ids are the server's own.
    const exposed = this.single ? message : exposeServerMessage(server.target, { ...message, method });
    if (isRequestId(exposed.id)) this.#asked.add(requestKey(exposed.id));
    // The server gave up on a request it sent: the caller's answer would now go nowhere.
    else if (method === "notifications/cancelled" && isRecord(exposed.params)) this.#asked.delete(requestKey(exposed.params.requestId));
    this.#send(exposed);
  }

  notifyCaller(method: string, params?: Params): void {
    this.#send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Sends a request to one server on behalf of the caller's call, so a cancellation can find it. */
  forward(call: Call<S> | null, server: S, method: string, params: Params | undefined): Promise<JsonRpcResponse> {
    if (call) call.server = server;
    return server.request(method, params, {
      signal: call?.abort.signal,
      onId: (id) => {
        if (call) call.serverId = id;
      },
    });
  }

  /** Like forward, answering the result; a server's JSON-RPC error is thrown as a JsonRpcError, to pass on unchanged. */
  async ask(call: Call<S> | null, server: S, method: string, params: Params | undefined): Promise<Record<string, unknown>> {
    const response = await this.forward(call, server, method, params);
    if ("error" in response) throw JsonRpcError.from(response.error);
    return response.result;
  }

  explain(server: S, err: unknown): string {
    return this.#explain(server, err);
  }

  /** Stops every call still running. */
  close(): void {
    this.calls.abortAll(new Error("closing"));
  }

  #origin(callerId: unknown): { server: S; id: RequestId } | undefined {
    if (this.single) return isRequestId(callerId) ? { server: this.servers[0]!, id: callerId } : undefined;
    const found = unprefixId(callerId);
    const server = found ? this.#byLabel.get(found.label) : undefined;
    return found && server ? { server, id: found.id } : undefined;
  }
}
