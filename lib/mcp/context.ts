// The context handed to context-bearing tools: who is calling, a cancellation signal,
// and the channel back to the client for logging, progress, elicitation, sampling and roots
// (MCP 2025-11-25 client features and server/utilities).
import { randomUUID } from "node:crypto";
import type { SchemaObject } from "../schema/index.ts";
import { LOG_LEVELS, type LogLevel } from "../session/session.ts";
import {
  formValidator,
  clientSupports,
  formAnswer,
  rootsAnswer,
  samplingAnswer,
  samplingParams,
  timeoutMs,
  unsupported,
  urlAnswer,
  type ClientFeature,
  type ElicitResult,
  type Root,
  type SamplingRequest,
  type SamplingResult,
  type UrlElicitResult,
} from "./client-features.ts";
import type { Call } from "./exchange.ts";
import { ClientRequestError } from "./client-requests.ts";
import type { InputMethod } from "./stateless/input-required.ts";
import type { RequestId } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { TraceContext } from "../util/trace-context.ts";

/** Default wait for the client's answer, in seconds. */
export const DEFAULT_CLIENT_TIMEOUT_S = 60;

export interface ElicitOptions {
  /** Seconds to wait for the answer (fractions allowed); 60 by default. */
  timeout?: number;
  /**
   * Names the question for a stateless (2026-07-28) client, which answers it in a later
   * round under this key; `elicitation-1`, `elicitation-2`… by call order when omitted.
   */
  key?: string;
}

export interface ElicitUrlOptions extends ElicitOptions {
  /** Correlates the later `notifications/elicitation/complete`; a random UUID by default. */
  elicitationId?: string;
}

export interface SampleOptions {
  /** Seconds to wait for the answer; 60 by default. */
  timeout?: number;
  /** Used when `sample` is given a plain prompt string; 1000 by default. */
  maxTokens?: number;
  /** The question's key for a stateless client (see ElicitOptions.key); `sampling-N` by default. */
  key?: string;
}

export interface ListRootsOptions {
  timeout?: number;
  /** The question's key for a stateless client (see ElicitOptions.key); `roots-N` by default. */
  key?: string;
}

/** `Server`: the type of `server`; the package's ToolContext (lib/server.ts) names McpServer. */
export interface ToolContext<Server = unknown> {
  readonly sessionId: string | null;
  readonly requestId: RequestId | null;
  /** The McpServer running this tool. */
  readonly server: Server;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /**
   * This call's W3C trace context: a child of the caller's (`_meta.traceparent`, else the
   * `traceparent` header), or a new trace. Pass `traceparent` on to what the tool calls; child
   * programs started through hubmcp get it as TRACEPARENT / TRACESTATE already.
   */
  readonly trace: TraceContext;
  /** The request's `_meta`, as the caller sent it (empty without one): for options a caller gives beside the arguments. */
  readonly meta: Readonly<Record<string, unknown>>;
  log(level: LogLevel, data: unknown, logger?: string): void;
  debug(data: unknown, logger?: string): void;
  info(data: unknown, logger?: string): void;
  notice(data: unknown, logger?: string): void;
  warning(data: unknown, logger?: string): void;
  error(data: unknown, logger?: string): void;
  critical(data: unknown, logger?: string): void;
  alert(data: unknown, logger?: string): void;
  emergency(data: unknown, logger?: string): void;
  /** Sends `notifications/progress` when the request carried a progress token; never goes backwards. */
  reportProgress(progress: number, total?: number, message?: string): void;
  /**
   * Asks the user to fill a flat form (`elicitation/create`, form mode). Decline and cancel
   * are ordinary answers. Throws when the client lacks the capability, on timeout, or when
   * the session ends first.
   */
  elicit<T = Record<string, unknown>>(message: string, schema: SchemaObject, options?: ElicitOptions): Promise<ElicitResult<T>>;
  /** Asks the user to open a URL (`elicitation/create`, URL mode), e.g. to sign in elsewhere. */
  elicitUrl(message: string, url: string, options?: ElicitUrlOptions): Promise<UrlElicitResult>;
  /** Tells the client the out-of-band step of a URL elicitation finished. */
  completeElicitation(elicitationId: string): void;
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(request: SamplingRequest | string, options?: SampleOptions): Promise<SamplingResult>;
  /** The client's filesystem roots (`roots/list`). */
  listRoots(options?: ListRootsOptions): Promise<Root[]>;
  /**
   * Lets the call go on while the transport stops holding the client's request (MCP SSE
   * polling: the client reconnects with Last-Event-ID and receives the rest). A no-op where
   * the transport holds nothing: a plain JSON reply, stdio, no session.
   */
  detach(): void;
  /**
   * Attaches a durable handle to this call's async run (a job or task): `entries` (JSON, at
   * most 4 KB) are merged into it, published in the task's `_meta["io.hubmcp/handle"]` and
   * kept with the run in the state directory. Returns false where there is no live run (a
   * synchronous tool, or a run that already ended).
   */
  setTaskMetadata(entries: Record<string, unknown>): boolean;
}

/** How a plug-in follows a call's context without wrapping it. */
export interface ContextHooks {
  /** The handler started (true) or stopped (false) waiting on the client: elicitation, sampling, roots. */
  onClientWait?(waiting: boolean): void;
  /** The handler attached a handle to its run (already checked); false when no live run takes it. */
  onTaskMetadata?(entries: Record<string, unknown>): boolean;
}

const MAX_HANDLE_BYTES = 4096;

/** The entries as plain JSON, or a TypeError naming the rule broken (never the values). */
function handleEntries(entries: unknown): Record<string, unknown> {
  const fail = (): never => {
    throw new TypeError(`setTaskMetadata: entries must be a plain object of JSON values, at most ${MAX_HANDLE_BYTES} bytes`);
  };
  if (!isRecord(entries) || Array.isArray(entries)) fail();
  let text: string;
  try {
    text = JSON.stringify(entries);
  } catch {
    return fail();
  }
  if (Buffer.byteLength(text) > MAX_HANDLE_BYTES) fail();
  return JSON.parse(text) as Record<string, unknown>;
}

/** The `progressToken` a request's `_meta` carries, if any. */
export function progressTokenOf(params: Record<string, unknown>): string | number | undefined {
  const meta = params._meta;
  if (!isRecord(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/** The ToolContext of one call, built on its Call: everything goes through the call's exchange. */
export class Context implements ToolContext {
  readonly sessionId: string | null;
  readonly requestId: RequestId | null;
  readonly server: unknown;
  readonly signal: AbortSignal;
  readonly #call: Call;
  readonly #progressToken: string | number | undefined;
  readonly #hooks: ContextHooks | undefined;
  #lastProgress = -Infinity;

  constructor(call: Call, progressToken: string | number | undefined, hooks?: ContextHooks) {
    this.#call = call;
    this.#progressToken = progressToken;
    this.#hooks = hooks;
    this.sessionId = call.session?.id ?? null;
    this.requestId = call.id;
    this.server = call.server;
    this.signal = call.signal ?? new AbortController().signal;
  }

  get trace(): TraceContext {
    return this.#call.trace;
  }

  get meta(): Readonly<Record<string, unknown>> {
    return this.#call.meta;
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const scope = this.#call.exchange.stateless;
    // A stateless request logs only when its _meta asked for a level.
    const threshold = scope ? scope.logLevel : (this.#call.session?.logLevel ?? "info");
    if (threshold === undefined || rank(level) < rank(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.#call.send({ jsonrpc: "2.0", method: "notifications/message", params });
  }
  debug(data: unknown, logger?: string): void {
    this.log("debug", data, logger);
  }
  info(data: unknown, logger?: string): void {
    this.log("info", data, logger);
  }
  notice(data: unknown, logger?: string): void {
    this.log("notice", data, logger);
  }
  warning(data: unknown, logger?: string): void {
    this.log("warning", data, logger);
  }
  error(data: unknown, logger?: string): void {
    this.log("error", data, logger);
  }
  critical(data: unknown, logger?: string): void {
    this.log("critical", data, logger);
  }
  alert(data: unknown, logger?: string): void {
    this.log("alert", data, logger);
  }
  emergency(data: unknown, logger?: string): void {
    this.log("emergency", data, logger);
  }

  reportProgress(progress: number, total?: number, message?: string): void {
    const token = this.#progressToken;
    if (token === undefined || !Number.isFinite(progress) || progress <= this.#lastProgress) return;
    this.#lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#call.send({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  async elicit<T = Record<string, unknown>>(message: string, schema: SchemaObject, options: ElicitOptions = {}): Promise<ElicitResult<T>> {
    const validate = formValidator(schema);
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    const params = { mode: "form", message: String(message), requestedSchema: schema };
    const result = await this.#ask("form elicitation", "elicitation/create", params, wait, options.key);
    return formAnswer(result, validate) as ElicitResult<T>;
  }

  async elicitUrl(message: string, url: string, options: ElicitUrlOptions = {}): Promise<UrlElicitResult> {
    if (typeof url !== "string" || !URL.canParse(url)) throw new TypeError("elicitUrl: url must be an absolute URL");
    const elicitationId = options.elicitationId ?? randomUUID();
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    const params = { mode: "url", message: String(message), url, elicitationId };
    return urlAnswer(await this.#ask("URL elicitation", "elicitation/create", params, wait, options.key), elicitationId);
  }

  detach(): void {
    this.#call.exchange.detach?.();
  }

  setTaskMetadata(entries: Record<string, unknown>): boolean {
    const checked = handleEntries(entries);
    return this.#hooks?.onTaskMetadata?.(checked) ?? false;
  }

  completeElicitation(elicitationId: string): void {
    this.#call.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId } });
  }

  async sample(request: SamplingRequest | string, options: SampleOptions = {}): Promise<SamplingResult> {
    const params = samplingParams(request, options.maxTokens);
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    return samplingAnswer(await this.#ask("sampling", "sampling/createMessage", params, wait, options.key));
  }

  async listRoots(options: ListRootsOptions = {}): Promise<Root[]> {
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    return rootsAnswer(await this.#ask("roots", "roots/list", {}, wait, options.key));
  }

  async #ask(feature: ClientFeature, method: InputMethod, params: Record<string, unknown>, wait: number, key?: string): Promise<Record<string, unknown>> {
    const call = this.#call;
    const scope = call.exchange.stateless;
    if (scope) {
      // A stateless client is never sent a request: the question becomes an input_required round.
      if (!scope.ask) throw new ClientRequestError("HUBMCP_CLIENT_UNSUPPORTED", `A ${feature} cannot be asked while answering this method`);
      const answer = await scope.ask(method, params, key);
      return isRecord(answer) ? answer : {};
    }
    const session = call.session;
    if (!session || !clientSupports(call.clientCapabilities, feature)) throw unsupported(feature, session !== null);
    const hooks = this.#hooks;
    hooks?.onClientWait?.(true);
    try {
      return await call.core.clientRequests.request(session, (m) => call.send(m), method, params, { timeoutMs: wait, signal: this.signal });
    } finally {
      hooks?.onClientWait?.(false);
    }
  }
}
