// Serves one request of MCP 2026-07-28 statelessly: envelope and header checks, the 2026
// method table (the shared methods minus the removed ones, plus server/discover and
// subscriptions/listen), multi-round-trip input for the methods that may ask, and result
// decoration. Transports call it instead of the session path when ../revision.ts says "stateless".
import { failureFields } from "../../util/logger.ts";
import { describeServer, type ServerCore } from "../core.ts";
import { Call, type Exchange, type StatelessScope } from "../exchange.ts";
import type { Method, MethodTable, Result } from "../methods/types.ts";
import type { RegisteredTool } from "../../registry/tools.ts";
import { classify, ErrorCode, failure, isJsonRpcError, JsonRpcError, success, type RequestId } from "../../util/jsonrpc.ts";
import { checkEnvelope, REMOVED_METHODS, STATELESS_VERSIONS, type RequestEnvelope } from "./envelope.ts";
import { ACCEPTED, refused, replied, type Outcome } from "../outcome.ts";
import { refusalOf, methodNotFound, resourceNotFound, type StatelessErrorBody } from "./errors.ts";
import { checkParamHeaders, checkStandardHeaders, headerValue, paramHeadersOf, type HeaderBag, type ParamHeader } from "./headers.ts";
import { INPUT_REQUIRED_METHODS, MissingCapabilityError } from "./input-required.ts";
import { ListenHub } from "./listen-hub.ts";
import { createRequestStateCodec, type RequestStateCodec } from "./request-state.ts";
import { decorateResult, discoverResult, type CachePolicy } from "./results.ts";
import { runRound } from "./rounds.ts";

export interface StatelessOptions {
  /** Seals requestState; at least 32 bytes. Share it between processes behind one load balancer. */
  requestStateKey?: Buffer;
  /** Caching hints of cacheable results; `ttlMs: 0, cacheScope: "private"` by default. */
  cache?: CachePolicy;
}

/** A method of the 2026 table also sees the request's envelope. */
export type StatelessMethod = (params: Record<string, unknown>, call: Call, envelope: RequestEnvelope) => Result | Promise<Result>;

export class StatelessServer {
  readonly #core: ServerCore;
  readonly #shared: MethodTable;
  /** Handed to each Call for `ctx.server`. */
  readonly #server: unknown;
  readonly #methods = new Map<string, StatelessMethod>();
  readonly #codec: RequestStateCodec;
  readonly #cache: CachePolicy | undefined;
  readonly #paramHeaders = new WeakMap<RegisteredTool, ParamHeader[]>();
  /** Open `subscriptions/listen` streams. */
  readonly listeners = new ListenHub();

  /**
   * `shared`: the table the session dispatcher serves too (one table, not a lookup into the
   * other server). `own`: methods of this revision only (the tasks extension's, gated on
   * their feature, see ../methods/gate.ts). Both are fixed here: nothing is added later.
   * `server`: what tool contexts name as `ctx.server`.
   */
  constructor(core: ServerCore, shared: MethodTable, options: StatelessOptions = {}, own: Record<string, StatelessMethod> = {}, server?: unknown) {
    this.#core = core;
    this.#shared = shared;
    this.#server = server;
    this.#codec = createRequestStateCodec(options.requestStateKey ? { key: options.requestStateKey } : {});
    this.#cache = options.cache;
    this.#methods.set("server/discover", () => this.discover());
    this.#methods.set("subscriptions/listen", (params, call) => this.listeners.listen(params, call));
    for (const [name, method] of Object.entries(own)) this.#methods.set(name, method);
  }

  discover(): Result {
    return discoverResult(describeServer(this.#core), this.#cache);
  }

  /**
   * One message. `headers` are the HTTP request's (lower-case names), or null on a transport
   * without headers (stdio), which skips the header checks.
   */
  async handle(body: unknown, exchange: Exchange, headers: HeaderBag | null): Promise<Outcome> {
    const incoming = classify(body);
    if (incoming.kind === "invalid") return refused("malformed", failure(incoming.id, incoming.error));
    // Notifications and responses have no place in a stateless exchange: accepted, ignored.
    if (incoming.kind !== "request") return ACCEPTED;
    const { id, method } = incoming.message;
    const params: Record<string, unknown> = { ...(incoming.message.params ?? {}) };
    const fail = (error: StatelessErrorBody, refusal = refusalOf(error.code)): Outcome =>
      refusal ? refused(refusal, failure(id, error)) : replied(failure(id, error));

    const protocolHeader = headers ? headerValue(headers, "mcp-protocol-version") : undefined;
    const checked = checkEnvelope(params, protocolHeader, STATELESS_VERSIONS, headers !== null);
    if (!checked.ok) return fail(checked.error, checked.refusal);
    const envelope = checked.envelope;

    const own = this.#methods.get(method);
    const shared = own || REMOVED_METHODS.has(method) || method.startsWith("tasks/") || !Object.hasOwn(this.#shared, method) ? undefined : this.#shared[method];
    if (!own && !shared) return fail(methodNotFound());

    if (headers) {
      const standard = checkStandardHeaders(headers, method, params);
      if (!standard.ok) return fail(standard.error, standard.refusal);
      const tool = method === "tools/call" && typeof params.name === "string" ? this.#core.tools.get(params.name) : undefined;
      if (tool) {
        const declared = this.#paramHeadersOf(tool);
        const args = checkParamHeaders(headers, declared, params.arguments);
        if (!args.ok) return fail(args.error, args.refusal);
      }
    }
    // The 2025 task parameter is tolerated and ignored: the tool's registration decides.
    if (method === "tools/call") delete params.task;

    try {
      const result = own
        ? await own(params, this.#call(id, exchange, envelope, {}, undefined, params), envelope)
        : await this.#serve(method, shared!, params, id, exchange, envelope);
      const uri = method === "resources/read" && typeof params.uri === "string" ? params.uri : undefined;
      return replied(success(id, decorateResult(method, result, { serverInfo: this.#core.info, cache: this.#cache, uri })));
    } catch (err) {
      if (err instanceof MissingCapabilityError) return fail(err.toBody());
      if (isJsonRpcError(err)) {
        const error = err.toBody() as StatelessErrorBody;
        // Resource not found is -32602 with data.uri in this revision (-32002 is retired).
        if (error.code === ErrorCode.ResourceNotFound) return fail(resourceNotFound(typeof params.uri === "string" ? params.uri : ""));
        // A feature's method not in use yet (./methods/gate.ts) is as unknown as any other.
        if (error.code === ErrorCode.MethodNotFound) return fail(methodNotFound());
        return fail(error);
      }
      this.#core.logger.error("method failed", { method, ...failureFields(err) });
      return fail({ code: ErrorCode.InternalError, message: "Internal error" }, "internal-error");
    }
  }

  /** A shared method; on those that may ask the user, as a replayed round. */
  async #serve(method: string, fn: Method, params: Record<string, unknown>, id: RequestId, exchange: Exchange, envelope: RequestEnvelope): Promise<Result> {
    if (!INPUT_REQUIRED_METHODS.has(method)) return fn(params, this.#call(id, exchange, envelope, {}, undefined, params));
    // Ends the abandoned handler of a round that stops at a question: its ctx.signal aborts.
    const roundEnded = new AbortController();
    const outcome = await runRound(this.#codec, { method, params, clientCapabilities: envelope.clientCapabilities }, async (round) => {
      const asking: Pick<StatelessScope, "ask" | "answered"> = {
        ask: (m, p, key) => round.ask({ method: m, params: p }, key),
        answered: (m, key) => round.answered(m, key),
      };
      // The round's own answers, not the client's: a handler never sees them in its params.
      const { inputResponses: _answers, requestState: _state, ...rest } = params;
      return fn(rest, this.#call(id, exchange, envelope, asking, roundEnded.signal, params));
    });
    if (outcome.kind !== "complete") roundEnded.abort(new Error("The round ended with input_required"));
    if (outcome.kind === "error") throw new JsonRpcError(outcome.error.code, outcome.error.message, outcome.error.data);
    return outcome.kind === "input_required" ? outcome.result : outcome.value;
  }

  #call(
    id: RequestId,
    exchange: Exchange,
    envelope: RequestEnvelope,
    extra: Pick<StatelessScope, "ask" | "answered">,
    roundEnded?: AbortSignal,
    params?: Record<string, unknown>,
  ): Call {
    const stateless: StatelessScope = envelope.logLevel === undefined ? extra : { ...extra, logLevel: envelope.logLevel };
    const scoped: Exchange = {
      session: null,
      via: exchange,
      // Made on first use (a context asks once): the transport's signal, and the round's end.
      get signal() {
        const own = exchange.signal;
        if (!roundEnded) return own;
        return own ? AbortSignal.any([own, roundEnded]) : roundEnded;
      },
      clientCapabilities: envelope.clientCapabilities,
      stateless,
      get traceParent() {
        return exchange.traceParent;
      },
      send: (message) => exchange.send(message),
    };
    return new Call(this.#core, id, scoped, null, this.#server, params);
  }

  #paramHeadersOf(tool: RegisteredTool): ParamHeader[] {
    let found = this.#paramHeaders.get(tool);
    if (!found) {
      try {
        found = paramHeadersOf(tool.entry.inputSchema);
      } catch {
        found = [];
      }
      this.#paramHeaders.set(tool, found);
    }
    return found;
  }
}
