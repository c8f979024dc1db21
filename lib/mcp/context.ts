// The context handed to context-bearing tools: who is calling, a cancellation signal,
// and the channel back to the client for logging and progress.
import { LOG_LEVELS, type LogLevel, type Session } from "../session/session.ts";
import type { RequestId, JsonRpcMessage } from "./jsonrpc.ts";

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
}

export interface ContextInit {
  session: Session | null;
  requestId: RequestId | null;
  server: unknown;
  signal: AbortSignal;
  progressToken: string | number | undefined;
  send(message: JsonRpcMessage): void;
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
    if (token === undefined || !Number.isFinite(progress) || progress < this.#lastProgress) return;
    this.#lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.init.send({ jsonrpc: "2.0", method: "notifications/progress", params });
  }
}
