// One tool's MCP session with the gateway. It initialises with the host's own
// initialize params (so elicitation, sampling, roots and tasks capabilities reach the
// tool), sends requests and hands back their responses, passes every other message it
// receives (notifications, server-to-client requests) to `onServerMessage`, and recovers:
// a 404 on its session re-initialises once and repeats the request; 502/503/504/429 and
// network errors are retried with exponential backoff up to a bound.
import { setTimeout as sleep } from "node:timers/promises";
import type { JsonRpcResponse, Params, RequestId } from "../util/jsonrpc.ts";
import { classify } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { ToolTarget } from "./config.ts";
import { isRetryable, UpstreamError, type UpstreamFailure } from "./failures.ts";
import { exchange, type Agents } from "./upstream-http.ts";

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled each time after. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, initialDelayMs: 250, maxDelayMs: 2000 };

/** Reconnections with Last-Event-ID for one reply before giving up on it. */
const MAX_RESUMES = 5;

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
  readonly failure: UpstreamFailure;
  readonly attempts: number;
  constructor(failure: UpstreamFailure, attempts: number) {
    super(failure.kind);
    this.failure = failure;
    this.attempts = attempts;
  }
}

export class Upstream {
  readonly target: ToolTarget;
  readonly #ctx: UpstreamContext;
  #initParams: Params = {};
  #sessionId: string | null = null;
  #protocolVersion: string | null = null;
  #ready: Promise<Record<string, unknown>> | null = null;
  #initResult: Record<string, unknown> | null = null;
  #nextId = 1;
  #listening: AbortController | null = null;
  readonly #closing = new AbortController();

  constructor(target: ToolTarget, ctx: UpstreamContext) {
    this.target = target;
    this.#ctx = ctx;
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
    const { signal } = options;
    let response: JsonRpcResponse | null = null;
    let lastEventId: string | null = null;
    const onMessage = (value: unknown): void => {
      const incoming = classify(value);
      if (incoming.kind === "response" && incoming.message.id === id) response = incoming.message;
      else if (isRecord(value)) this.#ctx.onServerMessage(this, value);
    };
    const onEventId = (eventId: string): void => void (lastEventId = eventId);
    const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
    try {
      await this.#onSession(() => this.#post(message, signal, onMessage, onEventId));
    } catch (err) {
      if (!(err instanceof UpstreamGaveUp && err.failure.kind === "broken" && lastEventId !== null)) throw err;
    }
    for (let resumes = 0; !response && lastEventId !== null && resumes < MAX_RESUMES; resumes++) {
      const from: string = lastEventId;
      try {
        await this.#resume(from, signal, onMessage, onEventId);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        if (err.failure.kind !== "broken") throw new UpstreamGaveUp(err.failure, 1);
      }
      if (lastEventId === from && !response) break;
    }
    if (!response) throw new UpstreamGaveUp({ kind: "broken", detail: "the answer carried no response" }, 1);
    return response;
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
    this.#sessionId = null;
    if (!sessionId) return;
    const timeout = AbortSignal.timeout(2000);
    await exchange({
      method: "DELETE",
      url: this.target.endpoint,
      headers: this.#headers(sessionId),
      signal: timeout,
      agents: this.#ctx.agents,
      onMessage: () => {},
    }).catch(() => {});
  }

  async #postQuietly(message: Record<string, unknown>): Promise<void> {
    try {
      await this.#post(message, undefined, (value) => {
        if (isRecord(value)) this.#ctx.onServerMessage(this, value);
      });
    } catch (err) {
      const kind = err instanceof UpstreamError ? err.failure.kind : "error";
      this.#ctx.log(`${this.label}: a message to the tool was lost (${kind})`);
    }
  }

  async #initialize(): Promise<Record<string, unknown>> {
    this.#listening?.abort();
    this.#sessionId = null;
    this.#initResult = null;
    let result: Record<string, unknown> | null = null;
    let error: unknown = null;
    const sent = await this.#post({ jsonrpc: "2.0", id: 0, method: "initialize", params: this.#initParams }, undefined, (value) => {
      const incoming = classify(value);
      if (incoming.kind !== "response" || incoming.message.id !== 0) return;
      if ("result" in incoming.message) result = incoming.message.result;
      else error = incoming.message.error;
    });
    if (!result) {
      const detail = error && typeof (error as { message?: unknown }).message === "string" ? (error as { message: string }).message : "no initialize result";
      throw new UpstreamError({ kind: "http", status: sent.status, detail });
    }
    const init = result as Record<string, unknown>;
    this.#sessionId = sent.sessionId;
    this.#protocolVersion = typeof init.protocolVersion === "string" ? init.protocolVersion : null;
    this.#initResult = init;
    await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined, () => {});
    this.#listen();
    return init;
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
        this.#sessionId = null;
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
        if (!(err instanceof UpstreamError)) throw err;
        if (!isRetryable(err.failure) || attempt >= attempts || this.#closing.signal.aborted) throw new UpstreamGaveUp(err.failure, attempt);
        const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
        this.#ctx.log(`${this.label}: ${err.failure.kind === "unavailable" ? err.failure.detail : err.failure.kind}; retrying in ${delay} ms`);
        await sleep(delay, undefined, { signal: this.#closing.signal });
      }
    }
  }

  #headers(sessionId: string | null): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#ctx.token}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    };
    if (sessionId) headers["mcp-session-id"] = sessionId;
    if (this.#protocolVersion) headers["mcp-protocol-version"] = this.#protocolVersion;
    return headers;
  }

  #post(message: Record<string, unknown>, signal: AbortSignal | undefined, onMessage: (value: unknown) => void, onEventId?: (id: string) => void) {
    return exchange({
      method: "POST",
      url: this.target.endpoint,
      headers: this.#headers(this.#sessionId),
      body: JSON.stringify(message),
      signal: signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal,
      agents: this.#ctx.agents,
      onMessage,
      onEventId,
    });
  }

  /** Picks a reply stream up again after `lastEventId`. */
  #resume(lastEventId: string, signal: AbortSignal | undefined, onMessage: (value: unknown) => void, onEventId: (id: string) => void) {
    const headers = this.#headers(this.#sessionId);
    headers.accept = "text/event-stream";
    headers["last-event-id"] = lastEventId;
    delete headers["content-type"];
    return exchange({
      method: "GET",
      url: this.target.endpoint,
      headers,
      signal: signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal,
      agents: this.#ctx.agents,
      onMessage,
      onEventId,
    });
  }

  /**
   * Opens the session's standalone stream for messages not tied to a request (list
   * changes, resource updates). A gateway that holds no stream answers with a complete
   * body; then there is nothing to listen to and it is not reopened.
   */
  #listen(): void {
    const sessionId = this.#sessionId;
    if (!sessionId) return;
    const controller = (this.#listening = new AbortController());
    const headers = this.#headers(sessionId);
    headers.accept = "text/event-stream";
    delete headers["content-type"];
    exchange({
      method: "GET",
      url: this.target.endpoint,
      headers,
      signal: AbortSignal.any([controller.signal, this.#closing.signal]),
      agents: this.#ctx.agents,
      onMessage: (value) => {
        if (isRecord(value)) this.#ctx.onServerMessage(this, value);
      },
    }).catch(() => {
      // A 405 (no standalone stream offered), the session ending or closing: nothing to do.
    });
  }
}
