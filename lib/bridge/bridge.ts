// The host-facing side: receives the host's JSON-RPC messages, routes requests to the
// tool sessions (./upstream.ts), and relays what the tools send back. Ids are mapped both
// ways: each upstream request gets the bridge's own id, and each request a tool sends to
// the host (elicitation, sampling, roots) gets a fresh host-facing id, so a host answer,
// a cancellation or a progress update reaches exactly the request it belongs to.
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { JsonRpcRequest, JsonRpcResponse, Params, RequestId } from "../util/jsonrpc.ts";
import { classify, ErrorCode, failure, isJsonRpcError, JsonRpcError, success } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import { Catalog } from "./catalog.ts";
import type { BridgeConfig } from "./config.ts";
import { describeFailure } from "./failures.ts";
import { McpClientError } from "../federation/client-failure.ts";
import { exposeNotification } from "../federation/relay.ts";
import { withMeta, withTask } from "../federation/ids.ts";
import { routeRequest, type RouteTarget } from "./routes.ts";
import type { HostCall } from "./rpc-errors.ts";
import { DEFAULT_RETRY, Upstream, UpstreamGaveUp, type RetryPolicy } from "./upstream.ts";

export interface BridgeOptions {
  retry?: RetryPolicy;
  /** Reported as serverInfo.version when several tools are merged. */
  version?: string;
  /** Diagnostics (one line each); the CLI sends them to stderr. */
  log?: (line: string) => void;
}

const HOST_GONE = { code: ErrorCode.InternalError, message: "The client has closed its input and cannot answer" };

export class Bridge implements RouteTarget {
  readonly config: BridgeConfig;
  readonly upstreams: readonly Upstream[];
  readonly catalog: Catalog;
  readonly version: string;
  readonly #send: (message: unknown) => void;
  readonly #log: (line: string) => void;
  readonly #agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  readonly #hostCalls = new Map<string, HostCall>();
  /** Host-facing id of a tool's request → the tool and its own id. */
  readonly #toolRequests = new Map<number, { upstream: Upstream; id: RequestId }>();
  /** Tools that failed to initialise; when one comes back, the host is told its lists changed. */
  readonly down = new Set<Upstream>();
  #nextHostId = 1;
  /** Answers being worked out for the host's requests, so closed input can wait for them. */
  readonly #answering = new Set<Promise<void>>();
  #inputClosed = false;
  /** Failure messages already logged, so a tool that stays down does not flood stderr. */
  readonly #logged = new Set<string>();

  constructor(config: BridgeConfig, send: (message: unknown) => void, options: BridgeOptions = {}) {
    this.config = config;
    this.#log = options.log ?? (() => {});
    this.#send = (message) => this.#deliver(send, message);
    this.version = options.version ?? "0.0.0";
    const context = {
      token: config.token,
      retry: options.retry ?? DEFAULT_RETRY,
      agents: this.#agents,
      onServerMessage: (upstream: Upstream, message: Record<string, unknown>) => this.#fromTool(upstream, message),
      log: (line: string) => this.#log(line),
    };
    this.upstreams = config.tools.map((target) => new Upstream(target, context));
    this.catalog = new Catalog(this.upstreams, (upstream, method, params) => this.ask(null, upstream, method, params));
  }

  get single(): boolean {
    return this.upstreams.length === 1;
  }

  /** One message from the host. Never throws. */
  receive(value: unknown): void {
    const incoming = classify(value);
    switch (incoming.kind) {
      case "invalid":
        if (incoming.id !== null) this.#send(failure(incoming.id, incoming.error));
        return;
      case "request": {
        const answering = this.#answer(incoming.message);
        this.#answering.add(answering);
        void answering.finally(() => this.#answering.delete(answering));
        return;
      }
      case "notification":
        return this.#hostNotification(incoming.message.method, incoming.message.params);
      case "response":
        return this.#hostResponse(incoming.message);
    }
  }

  /**
   * The host closed its input: resolves once every request read before that is answered (as
   * `start_mcp --stdio` does). A tool's question to the host can no longer be answered, so it
   * gets an error at once, now and from then on, rather than holding its call.
   */
  async inputClosed(): Promise<void> {
    this.#inputClosed = true;
    for (const [hostId, pending] of this.#toolRequests) {
      this.#toolRequests.delete(hostId);
      void pending.upstream.answer(pending.id, { error: HOST_GONE });
    }
    while (this.#answering.size > 0) await Promise.all(this.#answering);
  }

  /** Ends every tool session (best effort) and stops whatever is still running. */
  async close(): Promise<void> {
    for (const call of this.#hostCalls.values()) call.abort.abort(new Error("closing"));
    await Promise.all(this.upstreams.map((u) => u.close()));
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /** Sends a request to one tool on behalf of the host's call, so cancellation can find it. */
  async forward(call: HostCall | null, upstream: Upstream, method: string, params: Params | undefined): Promise<JsonRpcResponse> {
    if (call) call.upstream = upstream;
    return upstream.request(method, params, {
      signal: call?.abort.signal,
      onId: (id) => {
        if (call) call.upstreamId = id;
      },
    });
  }

  /** Like forward, answering the result; a JSON-RPC error from the tool is thrown as a JsonRpcError to pass on unchanged. */
  async ask(call: HostCall | null, upstream: Upstream, method: string, params: Params | undefined): Promise<Record<string, unknown>> {
    const response = await this.forward(call, upstream, method, params);
    if ("error" in response) throw JsonRpcError.from(response.error);
    return response.result;
  }

  /** The user-facing sentence for an upstream failure, logged once per distinct sentence. */
  explain(upstream: Upstream, err: unknown): string {
    const text =
      err instanceof UpstreamGaveUp
        ? describeFailure(err.failure, upstream.target.tool, this.config.api, err.attempts)
        : err instanceof McpClientError
          ? describeFailure(err.failure, upstream.target.tool, this.config.api)
          : `Tool ${upstream.target.tool} failed: ${err instanceof Error ? err.message : String(err)}`;
    if (!this.#logged.has(text)) {
      this.#logged.add(text);
      this.#log(text);
    }
    return text;
  }

  notifyHost(method: string, params?: Params): void {
    this.#send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Sends to the host. A message that cannot be written as JSON (a tool's answer nested
   * deeper than JSON.stringify can recurse) becomes a JSON-RPC error for its request, or
   * is dropped with a log line, so one hostile answer never stops the bridge.
   */
  #deliver(send: (message: unknown) => void, message: unknown): void {
    try {
      send(message);
    } catch (err) {
      const why = err instanceof RangeError ? "nested too deeply" : "not expressible as JSON";
      const id = isRecord(message) && !("method" in message) ? message.id : undefined;
      if (typeof id === "string" || typeof id === "number") {
        send(failure(id, { code: ErrorCode.InternalError, message: `The tool's answer could not be relayed: it is ${why}` }));
      } else this.#log(`dropped a message from a tool: it is ${why}`);
    }
  }

  async #answer(request: JsonRpcRequest): Promise<void> {
    const key = JSON.stringify(request.id);
    const call: HostCall = { abort: new AbortController(), upstream: null, upstreamId: null };
    this.#hostCalls.set(key, call);
    let reply: JsonRpcResponse;
    try {
      reply = success(request.id, await routeRequest(this, call, request));
    } catch (err) {
      if (isJsonRpcError(err)) reply = failure(request.id, err.toBody());
      else if (call.abort.signal.aborted) reply = failure(request.id, { code: ErrorCode.InternalError, message: "Request cancelled" });
      else reply = failure(request.id, { code: ErrorCode.InternalError, message: call.upstream ? this.explain(call.upstream, err) : "Internal error" });
    } finally {
      if (this.#hostCalls.get(key) === call) this.#hostCalls.delete(key);
    }
    // A cancelled request gets no answer (MCP utilities/cancellation).
    if (!call.abort.signal.aborted) this.#send(reply);
  }

  #hostNotification(method: string, params: Params | undefined): void {
    if (method === "notifications/initialized") return;
    if (method === "notifications/cancelled") {
      const call = isRecord(params) ? this.#hostCalls.get(JSON.stringify(params.requestId)) : undefined;
      if (!call) return;
      const { upstream, upstreamId } = call;
      const reason = typeof params?.reason === "string" ? { reason: params.reason } : {};
      if (upstream && upstreamId !== null) {
        void upstream.notify("notifications/cancelled", { requestId: upstreamId, ...reason }).finally(() => call.abort.abort(new Error("cancelled")));
      } else call.abort.abort(new Error("cancelled"));
      return;
    }
    // Roots changes and anything else concern every tool.
    for (const upstream of this.upstreams) if (upstream.initResult) void upstream.notify(method, params);
  }

  #hostResponse(response: JsonRpcResponse): void {
    if (typeof response.id !== "number") return;
    const pending = this.#toolRequests.get(response.id);
    if (!pending) return;
    this.#toolRequests.delete(response.id);
    void pending.upstream.answer(pending.id, "error" in response ? { error: response.error } : { result: response.result });
  }

  /** A notification or request a tool sent: relayed to the host under a fresh id. */
  #fromTool(upstream: Upstream, message: Record<string, unknown>): void {
    const method = message.method;
    if (typeof method !== "string") return;
    const params = isRecord(message.params) ? message.params : undefined;
    if ("id" in message && (typeof message.id === "string" || typeof message.id === "number")) {
      if (method === "ping") return void upstream.answer(message.id, { result: {} });
      if (this.#inputClosed) return void upstream.answer(message.id, { error: HOST_GONE });
      const hostId = this.#nextHostId++;
      this.#toolRequests.set(hostId, { upstream, id: message.id });
      const exposed = params && !this.single ? withMeta(upstream.label, params) : params;
      this.#send({ jsonrpc: "2.0", id: hostId, method, ...(exposed ? { params: exposed } : {}) });
      return;
    }
    const mapped = method === "notifications/cancelled" && params ? this.#toolCancelled(upstream, params) : params;
    this.notifyHost(method, this.single ? mapped : this.#multiNotification(upstream, method, mapped));
  }

  /** The tool gave up on a request it sent the host: cancel it under the host-facing id. */
  #toolCancelled(upstream: Upstream, params: Params): Params {
    for (const [hostId, pending] of this.#toolRequests) {
      if (pending.upstream === upstream && pending.id === params.requestId) {
        this.#toolRequests.delete(hostId);
        return { ...params, requestId: hostId };
      }
    }
    return params;
  }

  #multiNotification(upstream: Upstream, method: string, params: Params | undefined): Params | undefined {
    if (!params) return params;
    // Task ids are `<label>/<id>` (../federation/ids.ts): tasks/* finds its tool from the id alone.
    const related = withMeta(upstream.label, params);
    if (method === "notifications/tasks/status") return withTask(upstream.label, related) as Params;
    return exposeNotification(upstream.target, method, related);
  }
}
