// One tool's MCP session with the gateway, over the one MCP client
// (../federation/mcp-client.ts): the bridge's relay server (../federation/relay-server.ts). It initialises with the host's own initialize params (so
// elicitation, sampling, roots and tasks capabilities reach the tool), sends requests and
// hands back their responses (resumed with Last-Event-ID when a reply breaks off), passes
// every other message it receives (notifications, server-to-client requests) to
// `onServerMessage`, and recovers: a 404 on its session re-initialises once and repeats the
// request; 502/503/504/429 and network errors are retried with exponential backoff up to a bound.
import { setTimeout as sleep } from "node:timers/promises";
import { JsonRpcError, type JsonRpcResponse, type Params, type RequestId } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { ToolTarget } from "./config.ts";
import type { RelayServer } from "../federation/relay-server.ts";
import { isRetryable, McpClientError, type ClientFailure } from "../federation/client-failure.ts";
import { end, endpointHttp, exchange, initialize, posting, Reply, resumeReply, type Agents, type McpHttp, type McpRequest } from "../federation/mcp-client.ts";

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled each time after. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, initialDelayMs: 250, maxDelayMs: 2000 };

/** Bounds an answer and each event of a stream. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export interface UpstreamContext {
  token: string;
  retry: RetryPolicy;
  agents: Agents;
  /** A notification or request from the tool that is not the response to one of ours. */
  onServerMessage(upstream: Upstream, message: Record<string, unknown>): void;
  log(line: string): void;
}

/** Failure after retrying, with how many tries were made. */
export class UpstreamGaveUp extends Error {
  readonly code = "HUBMCP_BRIDGE_GAVE_UP";
  readonly failure: ClientFailure;
  readonly attempts: number;
  constructor(failure: ClientFailure, attempts: number) {
    super(failure.kind);
    this.failure = failure;
    this.attempts = attempts;
  }
}

export class Upstream implements RelayServer {
  readonly target: ToolTarget;
  readonly #ctx: UpstreamContext;
  readonly #http: McpHttp;
  #initParams: Params = {};
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #ready: Promise<Record<string, unknown>> | null = null;
  #initResult: Record<string, unknown> | null = null;
  #nextId = 1;
  #listening: AbortController | null = null;
  readonly #closing = new AbortController();

  constructor(target: ToolTarget, ctx: UpstreamContext) {
    this.target = target;
    this.#ctx = ctx;
    this.#http = endpointHttp(target.endpoint, ctx.agents, { authorization: `Bearer ${ctx.token}` });
  }

  get label(): string {
    return this.target.label;
  }

  /** The tool's initialize result, once it initialised. */
  get initResult(): Record<string, unknown> | null {
    return this.#initResult;
  }

  /** Initialises (once; again after a failure) with the host's params. */
  start(params: Params): Promise<Record<string, unknown>> {
    this.#initParams = params;
    return this.ready();
  }

  ready(): Promise<Record<string, unknown>> {
    this.#ready ??= this.#withRetry(() => this.#initialize()).catch((err: unknown) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  /**
   * Sends a request and resolves with its response. An SSE answer that ends (or breaks)
   * before the response is resumed with Last-Event-ID (MCP basic/transports "Resumability
   * and Redelivery"): servers close long replies on purpose, and proxies cut idle ones.
   */
  async request(method: string, params: Params | undefined, options: { signal?: AbortSignal; onId?: (id: RequestId) => void } = {}): Promise<JsonRpcResponse> {
    await this.ready();
    const id = this.#nextId++;
    options.onId?.(id);
    const signal = this.#signal(options.signal);
    const reply = new Reply(id, (message) => this.#ctx.onServerMessage(this, message));
    const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
    try {
      await this.#onSession(() => this.#post(message, signal, reply));
    } catch (err) {
      if (!(err instanceof UpstreamGaveUp && err.failure.kind === "broken" && reply.lastEventId !== null)) throw err;
    }
    try {
      await resumeReply(this.#http, this.#sessionId, this.#headers(), reply, signal, MAX_MESSAGE_BYTES);
    } catch (err) {
      if (err instanceof McpClientError) throw new UpstreamGaveUp(err.failure, 1);
      throw err;
    }
    if (!reply.response) throw new UpstreamGaveUp({ kind: "broken", detail: "the answer carried no response" }, 1);
    return reply.response;
  }

  /** Sends a notification (best effort: a lost one is logged, never thrown). */
  async notify(method: string, params?: Params): Promise<void> {
    if (!this.#initResult) return;
    await this.#postQuietly({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Answers a request the tool sent (elicitation, sampling, roots, ping). */
  async answer(id: RequestId, outcome: { result: unknown } | { error: unknown }): Promise<void> {
    await this.#postQuietly({ jsonrpc: "2.0", id, ...outcome });
  }

  /** Ends the session (DELETE, best effort) and stops its stream. */
  async close(): Promise<void> {
    this.#closing.abort(new Error("closing"));
    this.#listening?.abort();
    const sessionId = this.#sessionId;
    this.#sessionId = undefined;
    await end(this.#http, sessionId, this.#headers(), 2000);
  }

  async #postQuietly(message: Record<string, unknown>): Promise<void> {
    try {
      await this.#post(message, this.#closing.signal, new Reply("", (value) => this.#ctx.onServerMessage(this, value)));
    } catch (err) {
      const kind = err instanceof McpClientError ? err.failure.kind : "error";
      this.#ctx.log(`${this.label}: a message to the tool was lost (${kind})`);
    }
  }

  async #initialize(): Promise<Record<string, unknown>> {
    this.#listening?.abort();
    this.#sessionId = undefined;
    this.#protocolVersion = undefined;
    this.#initResult = null;
    let opened: Awaited<ReturnType<typeof initialize>>;
    try {
      opened = await initialize(this.#http, this.#initParams, this.#closing.signal, MAX_MESSAGE_BYTES);
    } catch (err) {
      // The gateway answered, but with no result: the tool's own reason, as an HTTP failure of the call.
      if (err instanceof JsonRpcError) throw new McpClientError({ kind: "http", status: 200, detail: err.message });
      throw err;
    }
    this.#sessionId = opened.session;
    this.#protocolVersion = opened.protocolVersion;
    this.#initResult = opened.result;
    this.#listen();
    return opened.result;
  }

  /** Runs `work` on the current session; when the gateway forgot it, re-initialises once and runs it again. */
  async #onSession<T>(work: () => Promise<T>): Promise<T> {
    const session = this.#sessionId;
    try {
      return await this.#withRetry(work);
    } catch (err) {
      if (!(err instanceof UpstreamGaveUp) || err.failure.kind !== "session-gone") throw err;
      // Concurrent requests that all saw the 404 share one re-initialisation.
      if (this.#sessionId === session) {
        this.#ctx.log(`${this.label}: session ended on the gateway; starting a new one`);
        this.#ready = null;
        this.#sessionId = undefined;
      }
      await this.ready();
      return this.#withRetry(work);
    }
  }

  async #withRetry<T>(work: () => Promise<T>): Promise<T> {
    const { attempts, initialDelayMs, maxDelayMs } = this.#ctx.retry;
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof McpClientError)) throw err;
        if (!isRetryable(err.failure) || attempt >= attempts || this.#closing.signal.aborted) throw new UpstreamGaveUp(err.failure, attempt);
        const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
        this.#ctx.log(`${this.label}: ${err.failure.kind === "unavailable" ? err.failure.detail : err.failure.kind}; retrying in ${delay} ms`);
        await sleep(delay, undefined, { signal: this.#closing.signal });
      }
    }
  }

  #headers(): Record<string, string> {
    return this.#protocolVersion ? { "mcp-protocol-version": this.#protocolVersion } : {};
  }

  #signal(signal: AbortSignal | undefined): AbortSignal {
    return signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
  }

  #post(message: Record<string, unknown>, signal: AbortSignal, reply: Reply) {
    return exchange(this.#http, posting(this.#sessionId, message, this.#headers()), signal, reply.onMessage, {
      maxBytes: MAX_MESSAGE_BYTES,
      onEventId: reply.onEventId,
    });
  }

  /**
   * Opens the session's standalone stream for messages not tied to a request (list
   * changes, resource updates). A gateway that holds no stream answers with a complete
   * body; then there is nothing to listen to and it is not reopened.
   */
  #listen(): void {
    const session = this.#sessionId;
    if (!session) return;
    const controller = (this.#listening = new AbortController());
    const req: McpRequest = { method: "GET", session, headers: this.#headers(), accept: "text/event-stream" };
    const onMessage = (value: unknown): void => {
      if (isRecord(value)) this.#ctx.onServerMessage(this, value);
    };
    exchange(this.#http, req, AbortSignal.any([controller.signal, this.#closing.signal]), onMessage, { maxBytes: MAX_MESSAGE_BYTES }).catch(() => {
      // A 405 (no standalone stream offered), the session ending or closing: nothing to do.
    });
  }
}
