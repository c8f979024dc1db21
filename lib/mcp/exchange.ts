// The seam between MCP and a transport. A transport (HTTP, stdio, a gateway, a bridge)
// hands the dispatcher parsed JSON-RPC and one Exchange per message; the dispatcher hands
// each method a Call. Nothing here knows sockets, statuses, paths or streams.
import type { Session } from "../session/session.ts";
import { isRecord } from "../util/guards.ts";
import type { JsonRpcMessage, RequestId } from "../util/jsonrpc.ts";
import { parentFromMeta, type ParentContext, type TraceContext } from "../util/trace-context.ts";
import { processTracing } from "../telemetry/tracer.ts";
import type { ServerCore } from "./core.ts";
import type { InFlightCall } from "./inflight.ts";
import type { StatelessLogLevel } from "./stateless/envelope.ts";
import type { InputMethod } from "./stateless/input-required.ts";

/**
 * What a request served statelessly (MCP 2026-07-28) carries instead of a session: its own
 * log level and, on methods that may answer `input_required`, where questions go.
 */
export interface StatelessScope {
  /** The request's `_meta` log level; absent means no log messages at all. */
  readonly logLevel?: StatelessLogLevel;
  /** Answers a question from the round's answers or parks it; absent where asking is not allowed. */
  ask?(method: InputMethod, params: Record<string, unknown>, key?: string): Promise<unknown>;
  /** Whether `ask` would answer that question from the round's answers at once (an async tool that gathers input first becomes a task there). */
  answered?(method: InputMethod, key?: string): boolean;
}

/** What a transport implements for the messages it delivers. */
export interface Exchange {
  /** The session the message arrived in; null for a session-less request. */
  readonly session: Session | null;
  /** Aborts when the transport loses the client and nothing else could take the result. */
  readonly signal?: AbortSignal;
  /**
   * Sends a message related to the request (progress, logging, a server-to-client request).
   * False when nothing could carry it, so a server request fails at once instead of timing out.
   */
  send(message: JsonRpcMessage): boolean;
  /**
   * After `send`: resolves once the transport can take more (its client read what was sent),
   * undefined when it can now. A relay awaits it between messages, so a slow client pauses the
   * stream it relays instead of having it buffered. Absent where a transport buffers itself.
   */
  drained?(): Promise<void> | undefined;
  /**
   * Lets the call go on while the transport stops holding the client's request open (MCP
   * streamable HTTP: close the SSE connection, the client resumes with Last-Event-ID). Absent
   * where a transport holds nothing.
   */
  detach?(): void;
  /**
   * Client capabilities for this one request, when the client sends them with each request
   * rather than once per session. Otherwise the session's, from `initialize`.
   */
  readonly clientCapabilities?: Record<string, unknown>;
  /** Set on a stateless (2026-07-28) request: logging and client questions follow it, not a session. */
  readonly stateless?: StatelessScope;
  /** The transport's exchange this one scopes (a stateless request's own scope over the POST it came on). */
  readonly via?: Exchange;
  /** The trace context the transport's own carrier named (the W3C headers of an HTTP request); `_meta` wins over it. */
  readonly traceParent?: ParentContext | null;
}

const NO_CAPABILITIES: Record<string, unknown> = Object.freeze({});
const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * One request as a method sees it. A class, not an object literal: V8 builds a literal that
 * has a getter through its slow path on every request, which cost about 4 KB of garbage and
 * a third of the library's own CPU time per tools/call (npm run bench).
 */
export class Call {
  readonly core: ServerCore;
  readonly id: RequestId;
  readonly exchange: Exchange;
  /** What a tool context names as `ctx.server`: given by whoever built the protocol, never read here. */
  readonly server: unknown;
  readonly #tracked: InFlightCall | null;
  /** The request's params, read for its trace context only when someone asks. */
  readonly #params: unknown;
  #trace: TraceContext | undefined;

  constructor(
    core: ServerCore,
    id: RequestId,
    exchange: Exchange,
    tracked: InFlightCall | null = null,
    server: unknown = undefined,
    params: unknown = undefined,
  ) {
    this.core = core;
    this.id = id;
    this.exchange = exchange;
    this.#tracked = tracked;
    this.server = server;
    this.#params = params;
  }

  /**
   * This request's span: a child of the one its `_meta` (else its transport) named, or the root
   * of a new trace. Made on first use, so a call nobody traces costs no ids.
   */
  get trace(): TraceContext {
    this.#trace ??= processTracing().context(parentFromMeta(this.#params) ?? this.exchange.traceParent ?? null);
    return this.#trace;
  }

  /** The request's `_meta` (empty when it has none). */
  get meta(): Readonly<Record<string, unknown>> {
    const params = this.#params;
    return isRecord(params) && isRecord(params._meta) ? params._meta : NO_META;
  }

  get session(): Session | null {
    return this.exchange.session;
  }

  /** Aborts on `notifications/cancelled` and when the transport loses the client; made on first use. */
  get signal(): AbortSignal | undefined {
    return this.#tracked ? this.#tracked.signal : this.exchange.signal;
  }

  get clientCapabilities(): Record<string, unknown> {
    return this.exchange.clientCapabilities ?? this.exchange.session?.clientCapabilities ?? NO_CAPABILITIES;
  }

  send(message: JsonRpcMessage): boolean {
    return this.exchange.send(message);
  }

  /** The same request seen through another exchange (a background run's own signal and sender). */
  through(exchange: Exchange): Call {
    const call = new Call(this.core, this.id, exchange, null, this.server, this.#params);
    call.#trace = this.trace;
    return call;
  }
}
