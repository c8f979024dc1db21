// The context handed to context-bearing tools: who is calling, a cancellation signal,
// and the channel back to the client for logging, progress, elicitation, sampling and roots.
import { randomUUID } from "node:crypto";
import type { SchemaObject } from "../schema/index.ts";
import { LOG_LEVELS, type LogLevel, type Session } from "../session/session.ts";
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
import type { ClientRequests, Send } from "./client-requests.ts";
import type { RequestId, JsonRpcMessage } from "./jsonrpc.ts";

/** Default wait for the client's answer, in seconds (interface spec, Limits 1). */
export const DEFAULT_CLIENT_TIMEOUT_S = 60;

export interface ElicitOptions {
  /** Seconds to wait for the answer (fractions allowed); 60 by default. */
  timeout?: number;
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
}

export interface ToolContext {
  readonly sessionId: string | null;
  readonly requestId: RequestId | null;
  /** The McpServer running this tool. */
  readonly server: unknown;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
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
  listRoots(options?: { timeout?: number }): Promise<Root[]>;
  /**
   * Ends the connection carrying this call's SSE reply while the call goes on (MCP SSE
   * polling): the client reconnects with Last-Event-ID and receives the rest. A no-op when
   * the reply is plain JSON or there is no session.
   */
  closeStream(): void;
}

export interface ContextInit {
  session: Session | null;
  requestId: RequestId | null;
  server: unknown;
  signal: AbortSignal;
  progressToken: string | number | undefined;
  /** May return false when no stream took the message. */
  send: Send;
  /** Where server-to-client requests wait; without it they are unsupported. */
  requests?: ClientRequests;
  closeStream?: () => void;
}

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

export class RequestContext implements ToolContext {
  readonly sessionId: string | null;
  readonly requestId: RequestId | null;
  readonly server: unknown;
  readonly signal: AbortSignal;
  protected readonly init: ContextInit;
  #lastProgress = -Infinity;

  constructor(init: ContextInit) {
    this.init = init;
    this.sessionId = init.session?.id ?? null;
    this.requestId = init.requestId;
    this.server = init.server;
    this.signal = init.signal;
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    if (rank(level) < rank(this.init.session?.logLevel ?? "info")) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.init.send({ jsonrpc: "2.0", method: "notifications/message", params });
  }
  debug(data: unknown, logger?: string): void { this.log("debug", data, logger); }
  info(data: unknown, logger?: string): void { this.log("info", data, logger); }
  notice(data: unknown, logger?: string): void { this.log("notice", data, logger); }
  warning(data: unknown, logger?: string): void { this.log("warning", data, logger); }
  error(data: unknown, logger?: string): void { this.log("error", data, logger); }
  critical(data: unknown, logger?: string): void { this.log("critical", data, logger); }
  alert(data: unknown, logger?: string): void { this.log("alert", data, logger); }
  emergency(data: unknown, logger?: string): void { this.log("emergency", data, logger); }

  reportProgress(progress: number, total?: number, message?: string): void {
    const token = this.init.progressToken;
    if (token === undefined || !Number.isFinite(progress) || progress <= this.#lastProgress) return;
    this.#lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.init.send({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  async elicit<T = Record<string, unknown>>(message: string, schema: SchemaObject, options: ElicitOptions = {}): Promise<ElicitResult<T>> {
    const validate = formValidator(schema);
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    const params = { mode: "form", message: String(message), requestedSchema: schema };
    const result = await this.#ask("form elicitation", "elicitation/create", params, wait);
    return formAnswer(result, validate) as ElicitResult<T>;
  }

  async elicitUrl(message: string, url: string, options: ElicitUrlOptions = {}): Promise<UrlElicitResult> {
    if (typeof url !== "string" || !URL.canParse(url)) throw new TypeError("elicitUrl: url must be an absolute URL");
    const elicitationId = options.elicitationId ?? randomUUID();
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    const params = { mode: "url", message: String(message), url, elicitationId };
    return urlAnswer(await this.#ask("URL elicitation", "elicitation/create", params, wait), elicitationId);
  }

  closeStream(): void {
    this.init.closeStream?.();
  }

  completeElicitation(elicitationId: string): void {
    this.init.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId } });
  }

  async sample(request: SamplingRequest | string, options: SampleOptions = {}): Promise<SamplingResult> {
    const params = samplingParams(request, options.maxTokens);
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    return samplingAnswer(await this.#ask("sampling", "sampling/createMessage", params, wait));
  }

  async listRoots(options: { timeout?: number } = {}): Promise<Root[]> {
    const wait = timeoutMs(options.timeout, DEFAULT_CLIENT_TIMEOUT_S);
    return rootsAnswer(await this.#ask("roots", "roots/list", {}, wait));
  }

  #ask(feature: ClientFeature, method: string, params: Record<string, unknown>, wait: number): Promise<Record<string, unknown>> {
    const { session, requests } = this.init;
    if (!session || !requests || !clientSupports(session.clientCapabilities, feature)) {
      return Promise.reject(unsupported(feature, session !== null));
    }
    return requests.request(session, this.init.send, method, params, { timeoutMs: wait, signal: this.signal });
  }
}
