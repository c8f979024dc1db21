// Takes parsed JSON-RPC (one message or a batch) and returns what to answer. Knows
// nothing of HTTP: the transport supplies the session, an abort signal and a sender.
import type { CallScope, ServerCore } from "./core.ts";
import { RpcError } from "./errors.ts";
import {
  classify,
  ErrorCode,
  failure,
  success,
  type Incoming,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from "./jsonrpc.ts";
import { InFlight, type InFlightCall } from "./inflight.ts";
import { completionMethods } from "./methods/completion.ts";
import { lifecycleMethods } from "./methods/lifecycle.ts";
import { promptMethods } from "./methods/prompts.ts";
import { resourceMethods } from "./methods/resources.ts";
import { toolMethods } from "./methods/tools.ts";
import type { MethodTable } from "./methods/types.ts";
import type { Session } from "../session/session.ts";

/** What a transport hands the dispatcher besides the message. */
export interface Exchange {
  session: Session | null;
  signal?: AbortSignal;
  send(message: JsonRpcMessage): void;
  /** Ends the request's SSE connection, not the call; the client resumes with Last-Event-ID. */
  closeStream?(): void;
}

export type Outcome =
  /** `status` is 400 when the body held nothing that could be served. */
  | { kind: "single"; response: JsonRpcResponse; status: 200 | 400 }
  | { kind: "batch"; responses: JsonRpcResponse[]; status: 200 | 400 }
  /** Only notifications and responses: nothing to answer. */
  | { kind: "accepted" };

export type NotificationHandler = (message: JsonRpcNotification, exchange: Exchange) => void;
export type ResponseHandler = (message: JsonRpcResponse, exchange: Exchange) => void;

const markInitialized: NotificationHandler = (_m, { session }) => {
  if (session) session.initialized = true;
};

/**
 * What a method runs with. A class, not an object literal: V8 builds a literal that has a
 * getter through its slow path on every request, which cost about 4 KB of garbage and a
 * third of hubmcp's own CPU time per tools/call (npm run bench).
 */
class RequestScope implements CallScope {
  readonly core: ServerCore;
  readonly id: RequestId;
  readonly session: Session | null;
  readonly send: (message: JsonRpcMessage) => void;
  readonly #exchange: Exchange;
  readonly #call: InFlightCall | null;

  constructor(core: ServerCore, id: RequestId, exchange: Exchange, call: InFlightCall | null) {
    this.core = core;
    this.id = id;
    this.session = exchange.session;
    this.send = exchange.send;
    this.#exchange = exchange;
    this.#call = call;
  }

  /** Made on first use: most calls never ask. */
  get signal(): AbortSignal | undefined {
    return this.#call ? this.#call.signal : this.#exchange.signal;
  }

  /** An own property, so a scope derived with `{ ...scope }` keeps it. */
  readonly closeStream = (): void => this.#exchange.closeStream?.();
}

export class Dispatcher {
  readonly #core: ServerCore;
  readonly #methods: MethodTable = { ...lifecycleMethods, ...toolMethods, ...resourceMethods, ...promptMethods, ...completionMethods };
  /** Running session requests, for `notifications/cancelled` (the answer of a cancelled one is dropped). */
  readonly inflight = new InFlight();
  readonly #notifications: Record<string, NotificationHandler> = {
    "notifications/initialized": markInitialized,
    initialized: markInitialized,
    "notifications/cancelled": (m, { session }) => {
      const requestId = m.params?.requestId;
      if (session && (typeof requestId === "string" || typeof requestId === "number")) this.inflight.cancel(session, requestId);
    },
  };
  /** Answers to server-to-client requests settle what the tool context is waiting for. */
  #onResponse: ResponseHandler = (message, { session }) => {
    this.#core.clientRequests.settle(message, session);
  };

  constructor(core: ServerCore) {
    this.#core = core;
  }

  /** Adds or replaces methods; later features plug in here rather than editing this file. */
  addMethods(table: MethodTable): void {
    Object.assign(this.#methods, table);
  }
  addNotifications(table: Record<string, NotificationHandler>): void {
    Object.assign(this.#notifications, table);
  }
  onResponse(handler: ResponseHandler): void {
    this.#onResponse = handler;
  }

  async handleBody(body: unknown, exchange: Exchange): Promise<Outcome> {
    if (!Array.isArray(body)) {
      const incoming = classify(body);
      const response = await this.handle(incoming, exchange);
      if (response === null) return { kind: "accepted" };
      return { kind: "single", response, status: incoming.kind === "invalid" && incoming.error.code === ErrorCode.InvalidRequest ? 400 : 200 };
    }
    if (body.length === 0) {
      return { kind: "single", response: failure(null, { code: ErrorCode.InvalidRequest, message: "Invalid Request: empty batch" }), status: 400 };
    }
    // Every entry costs a promise and an answer at once: an unbounded batch is a memory bomb.
    if (body.length > this.#core.maxBatchSize) {
      const message = `Invalid Request: batch too large (limit ${this.#core.maxBatchSize})`;
      return { kind: "single", response: failure(null, { code: ErrorCode.InvalidRequest, message }), status: 400 };
    }
    const incoming = body.map(classify);
    const answers = await Promise.all(incoming.map((m) => this.handle(m, exchange)));
    const responses = answers.filter((r): r is JsonRpcResponse => r !== null);
    if (responses.length === 0) return { kind: "accepted" };
    return { kind: "batch", responses, status: incoming.every((m) => m.kind === "invalid") ? 400 : 200 };
  }

  /** One classified message; null when nothing is owed back. */
  async handle(incoming: Incoming, exchange: Exchange): Promise<JsonRpcResponse | null> {
    switch (incoming.kind) {
      case "invalid":
        return failure(incoming.id, incoming.error);
      case "response":
        this.#onResponse(incoming.message, exchange);
        return null;
      case "notification": {
        const handler = this.#notifications[incoming.message.method];
        if (handler) {
          try {
            handler(incoming.message, exchange);
          } catch (err) {
            this.#core.logger.error("notification handler failed", { method: incoming.message.method, error: String(err) });
          }
        }
        return null;
      }
      case "request": {
        const { id, method, params } = incoming.message;
        const fn = this.#methods[method];
        if (!fn) return failure(id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${method.slice(0, 128)}` });
        // Only session requests can be cancelled; the signal stays lazy on the hot path.
        const call = exchange.session ? this.inflight.begin(exchange.session, id, () => exchange.signal) : null;
        const scope = new RequestScope(this.#core, id, exchange, call);
        try {
          const result = await fn(params ?? {}, scope);
          return call?.cancelled ? null : success(id, result);
        } catch (err) {
          if (call?.cancelled) return null;
          if (err instanceof RpcError) return failure(id, err.toBody());
          this.#core.logger.error("method failed", { method, error: err instanceof Error ? err.stack : String(err) });
          return failure(id, { code: ErrorCode.InternalError, message: "Internal error" });
        } finally {
          if (call) this.inflight.end(exchange.session!, call);
        }
      }
    }
  }
}
