// Takes parsed JSON-RPC (one message or a batch) and returns the responses owed. Knows no
// transport: each one supplies an Exchange (./exchange.ts) and decides how to deliver.
import type { ServerCore } from "./core.ts";
import { Call, type Exchange } from "./exchange.ts";
import {
  classify,
  ErrorCode,
  failure,
  isJsonRpcError,
  success,
  type Incoming,
  type JsonRpcNotification,
  type JsonRpcResponse,
} from "../util/jsonrpc.ts";
import { InFlight } from "./inflight.ts";
import { completionMethods } from "./methods/completion.ts";
import { lifecycleMethods } from "./methods/lifecycle.ts";
import { promptMethods } from "./methods/prompts.ts";
import { resourceMethods } from "./methods/resources.ts";
import { toolMethods } from "./methods/tools.ts";
import type { Method, MethodTable } from "./methods/types.ts";
import { StatelessServer, type StatelessOptions } from "./era2026/serve.ts";

/**
 * What one body is answered with. `malformed` says nothing in it could be served (an
 * invalid message, an empty or oversized batch): HTTP answers it with 400, stdio ignores it.
 */
export interface Answer {
  reply: JsonRpcResponse | JsonRpcResponse[] | null;
  malformed: boolean;
}

export type NotificationHandler = (message: JsonRpcNotification, exchange: Exchange) => void;
export type ResponseHandler = (message: JsonRpcResponse, exchange: Exchange) => void;

const markInitialized: NotificationHandler = (_m, { session }) => {
  if (session) session.initialized = true;
};

const NOTHING: Answer = { reply: null, malformed: false };

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

  /** Requests of MCP 2026-07-28 (no session, `_meta` envelope): the same methods, served statelessly. */
  readonly stateless: StatelessServer;

  constructor(core: ServerCore, stateless: StatelessOptions = {}) {
    this.#core = core;
    this.stateless = new StatelessServer(core, (name) => this.#methods[name], stateless);
  }

  /** Adds or replaces methods; features plug in here (async tools wrap `tools/call`) rather than editing this file. */
  addMethods(table: MethodTable): void {
    Object.assign(this.#methods, table);
  }
  /** The method now answering `name`, for a plug-in that wraps it. */
  method(name: string): Method | undefined {
    return this.#methods[name];
  }
  addNotifications(table: Record<string, NotificationHandler>): void {
    Object.assign(this.#notifications, table);
  }
  onResponse(handler: ResponseHandler): void {
    this.#onResponse = handler;
  }

  /** One message or a batch, as parsed from the wire. */
  async handle(body: unknown, exchange: Exchange): Promise<Answer> {
    if (!Array.isArray(body)) {
      const incoming = classify(body);
      const reply = await this.handleMessage(incoming, exchange);
      if (reply === null) return NOTHING;
      return { reply, malformed: incoming.kind === "invalid" && incoming.error.code === ErrorCode.InvalidRequest };
    }
    if (body.length === 0) {
      return { reply: failure(null, { code: ErrorCode.InvalidRequest, message: "Invalid Request: empty batch" }), malformed: true };
    }
    // Every entry costs a promise and an answer at once: an unbounded batch is a memory bomb.
    if (body.length > this.#core.maxBatchSize) {
      const message = `Invalid Request: batch too large (limit ${this.#core.maxBatchSize})`;
      return { reply: failure(null, { code: ErrorCode.InvalidRequest, message }), malformed: true };
    }
    const incoming = body.map(classify);
    const answers = await Promise.all(incoming.map((m) => this.handleMessage(m, exchange)));
    const reply = answers.filter((r): r is JsonRpcResponse => r !== null);
    if (reply.length === 0) return NOTHING;
    return { reply, malformed: incoming.every((m) => m.kind === "invalid") };
  }

  /** One classified message; null when nothing is owed back. */
  async handleMessage(incoming: Incoming, exchange: Exchange): Promise<JsonRpcResponse | null> {
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
        try {
          const result = await fn(params ?? {}, new Call(this.#core, id, exchange, call));
          return call?.cancelled ? null : success(id, result);
        } catch (err) {
          if (call?.cancelled) return null;
          if (isJsonRpcError(err)) return failure(id, err.toBody());
          this.#core.logger.error("method failed", { method, error: err instanceof Error ? err.stack : String(err) });
          return failure(id, { code: ErrorCode.InternalError, message: "Internal error" });
        } finally {
          if (call) this.inflight.end(exchange.session!, call);
        }
      }
    }
  }
}
