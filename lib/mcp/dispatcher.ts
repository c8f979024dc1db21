// Takes parsed JSON-RPC (one message or a batch) and returns the responses owed. Knows no
// transport: each one supplies an Exchange (./exchange.ts) and decides how to deliver.
import { failureFields } from "../util/logger.ts";
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
  type RequestId,
} from "../util/jsonrpc.ts";
import { isRecord, isThenable } from "../util/guards.ts";
import type { OpenSpan } from "../telemetry/span.ts";
import { processTracing } from "../telemetry/tracer.ts";
import { serverSpan } from "./span.ts";
import { InFlight, type InFlightCall } from "./inflight.ts";
import { completionMethods } from "./methods/completion.ts";
import { lifecycleMethods } from "./methods/lifecycle.ts";
import { promptMethods } from "./methods/prompts.ts";
import { resourceMethods } from "./methods/resources.ts";
import { toolMethods } from "./methods/tools.ts";
import { NO_ANSWER, type Method, type MethodTable, type Result } from "./methods/types.ts";
import { ACCEPTED, refused, replied, type Outcome } from "./outcome.ts";

/** The methods every revision shares; one table, handed to both the session and the stateless server. */
export function sharedMethods(): MethodTable {
  return { ...lifecycleMethods, ...toolMethods, ...resourceMethods, ...promptMethods, ...completionMethods };
}

/** A promise only where the handler's work must be done before the message counts as delivered (a relay). */
export type NotificationHandler = (message: JsonRpcNotification, exchange: Exchange) => void | Promise<void>;
export type ResponseHandler = (message: JsonRpcResponse, exchange: Exchange) => void | Promise<void>;

/**
 * What a server that is not a lib/mcp session brings (the gateway's /mcp, which relays).
 * `notification` and `response` replace the built-in handling of the messages that are not
 * requests, which serves lib/mcp's own sessions: initialized, cancellation of in-flight
 * calls, answers to server-to-client requests. `spans: false` makes no span per request: such
 * a server traces its requests with its own tracer (the gateway's spans, gateway/relay/trace.ts).
 */
export interface MessageHandlers {
  readonly notification?: NotificationHandler;
  readonly response?: ResponseHandler;
  readonly spans?: false;
}

const markInitialized: NotificationHandler = (_m, { session }) => {
  if (session) session.initialized = true;
};

/**
 * A batch refused whole: empty, or more than `max` messages (every entry costs a promise and an
 * answer at once, so an unbounded batch is a memory bomb). Null when its size is fine. Any
 * server answering batches (the tool server, the gateway's /mcp) asks this.
 */
export function batchRefusal(size: number, max: number): Outcome | null {
  if (size === 0) return refused("malformed", failure(null, { code: ErrorCode.InvalidRequest, message: "Invalid Request: empty batch" }));
  if (size <= max) return null;
  return refused("malformed", failure(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: batch too large (limit ${max})` }));
}

export class Dispatcher {
  readonly #core: ServerCore;
  readonly #methods: MethodTable;
  /** Handed to each Call for `ctx.server`; the dispatcher never looks at it. */
  readonly #server: unknown;
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
  readonly #onResponse: ResponseHandler = (message, { session }) => {
    this.#core.clientRequests.settle(message, session);
  };
  readonly #handlers: MessageHandlers;

  /**
   * `methods`: the whole table, built once by the caller (features gate themselves, see ./methods/gate.ts).
   * `handlers`: notifications and responses handled by the caller instead (absent for a tool server).
   */
  constructor(core: ServerCore, methods: MethodTable = sharedMethods(), server?: unknown, handlers: MessageHandlers = {}) {
    this.#core = core;
    this.#methods = methods;
    this.#server = server;
    this.#handlers = handlers;
  }

  /** The method answering `name`. */
  method(name: string): Method | undefined {
    // Own entries only: "constructor" or "toString" are not methods.
    return Object.hasOwn(this.#methods, name) ? this.#methods[name] : undefined;
  }

  /** One message or a batch, as parsed from the wire. */
  handle(body: unknown, exchange: Exchange): Promise<Outcome> {
    try {
      const answer = this.answer(body, exchange);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * handle(), answered in the same turn when every method it runs answers synchronously
   * (a sync tool, initialize, ping): transports on a hot path skip the promise.
   */
  answer(body: unknown, exchange: Exchange): Outcome | Promise<Outcome> {
    if (Array.isArray(body)) return this.#batch(body, exchange);
    const incoming = classify(body);
    const reply = this.handleMessage(incoming, exchange);
    return reply instanceof Promise ? answerLater(incoming, reply) : single(incoming, reply);
  }

  #batch(body: unknown[], exchange: Exchange): Outcome | Promise<Outcome> {
    const bounds = batchRefusal(body.length, this.#core.maxBatchSize);
    if (bounds) return bounds;
    const incoming = body.map(classify);
    return Promise.all(incoming.map((m) => this.handleMessage(m, exchange))).then((answers) => {
      const reply = answers.filter((r): r is JsonRpcResponse => r !== null);
      if (reply.length === 0) return ACCEPTED;
      return incoming.every((m) => m.kind === "invalid") ? refused("malformed", reply) : replied(reply);
    });
  }

  /** One classified message; null when nothing is owed back. A promise only when its method answers with one. */
  handleMessage(incoming: Incoming, exchange: Exchange): JsonRpcResponse | null | Promise<JsonRpcResponse | null> {
    switch (incoming.kind) {
      case "invalid":
        return failure(incoming.id, incoming.error);
      case "response":
        return this.#delivered("response", (this.#handlers.response ?? this.#onResponse)(incoming.message, exchange));
      case "notification": {
        const name = incoming.message.method;
        const handler = this.#handlers.notification ?? (Object.hasOwn(this.#notifications, name) ? this.#notifications[name] : undefined);
        if (!handler) return null;
        let done: void | Promise<void>;
        try {
          done = handler(incoming.message, exchange);
        } catch (err) {
          this.#core.logger.error("notification handler failed", { method: name, ...failureFields(err) });
          return null;
        }
        return this.#delivered(name, done);
      }
      case "request": {
        const { id, method, params } = incoming.message;
        const fn = this.method(method);
        if (!fn) return failure(id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${method.slice(0, 128)}` });
        // Only session requests can be cancelled; the signal stays lazy on the hot path.
        const call = exchange.session ? this.inflight.begin(exchange.session, id, exchange) : null;
        const request = new Call(this.#core, id, exchange, call, this.#server, params);
        const tracer = this.#handlers.spans === false ? null : processTracing();
        const span = tracer?.active ? serverSpan(tracer, request, method, params) : null;
        let result: Result | Promise<Result>;
        let later: boolean;
        try {
          result = fn(params ?? {}, request);
          later = isThenable(result);
        } catch (err) {
          return this.#failed(id, method, call, err, span);
        }
        return later ? this.#later(id, method, call, result as Promise<Result>, span) : this.#settled(id, call, result as Result, span);
      }
    }
  }

  /** Nothing is owed for a notification or a response; a handler's promise is waited on, its failure logged. */
  #delivered(what: string, done: void | Promise<void>): null | Promise<null> {
    if (!isThenable(done)) return null;
    return Promise.resolve(done).then(
      () => null,
      (err: unknown) => {
        this.#core.logger.error("notification handler failed", { method: what, ...failureFields(err) });
        return null;
      },
    );
  }

  /** The closures of a method that answered with a promise; kept apart so the synchronous path makes none. */
  #later(id: RequestId, method: string, call: InFlightCall | null, result: PromiseLike<Result>, span: OpenSpan | null): Promise<JsonRpcResponse | null> {
    return Promise.resolve(result).then(
      (value) => this.#settled(id, call, value, span),
      (err: unknown) => this.#failed(id, method, call, err, span),
    );
  }

  #settled(id: RequestId, call: InFlightCall | null, result: Result, span: OpenSpan | null): JsonRpcResponse | null {
    span?.end(isRecord(result) && result.isError === true ? "tool_error" : undefined);
    // A relayed call its server cancelled: as a call cancelled here, nothing is owed.
    if (result === NO_ANSWER) return null;
    if (!call) return success(id, result);
    call.end();
    return call.cancelled ? null : success(id, result);
  }

  #failed(id: RequestId, method: string, call: InFlightCall | null, err: unknown, span: OpenSpan | null): JsonRpcResponse | null {
    span?.end(isJsonRpcError(err) ? String(err.code) : "_OTHER");
    call?.end();
    if (call?.cancelled) return null;
    if (isJsonRpcError(err)) return failure(id, err.toBody());
    this.#core.logger.error("method failed", { method, ...failureFields(err) });
    return failure(id, { code: ErrorCode.InternalError, message: "Internal error" });
  }
}

function answerLater(incoming: Incoming, reply: Promise<JsonRpcResponse | null>): Promise<Outcome> {
  return reply.then((settled) => single(incoming, settled));
}

function single(incoming: Incoming, reply: JsonRpcResponse | null): Outcome {
  if (reply === null) return ACCEPTED;
  return incoming.kind === "invalid" && incoming.error.code === ErrorCode.InvalidRequest ? refused("malformed", reply) : replied(reply);
}
