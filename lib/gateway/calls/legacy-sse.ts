// The HTTP+SSE transport of MCP 2024-11-05 on the gateway itself, for clients that speak
// only it (the Python SDK's `sse_client`, `mcp-remote --transport sse-only`): `GET …/sse`
// with Accept: text/event-stream holds a stream whose first event, `endpoint`, names a POST
// URL on the gateway (`…/sse?session_id=<gateway session>`, same bearer). Each POST is
// answered 202 at once and sent on to the tool server as streamable HTTP; whatever comes
// back for it (the response, and the requests and notifications tied to it) is written to
// the held stream as `message` events, as is the tool session's own stream. The upstream
// is spoken to only through standard MCP, so any streamable-HTTP server works behind it:
// the client's own `initialize` opens the upstream session (the answer's Mcp-Session-Id
// names it, and the stream keeps it); a client that sends something else first gets one
// the gateway opens for it.
//
// A held stream lives in the gateway process that opened it: a POST reaching another
// replica is 404 (the client opens a new stream), so legacy clients need sticky routing.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Tracer } from "../../telemetry/tracer.ts";
import { continueTrace, errorTypeOf, gatewaySpan } from "../relay/trace.ts";
import { SseStream } from "../../http/sse.ts";
import { carriesMessage, readEvents } from "../../http/sse-reader.ts";
import { CORS, GatewayError, sendJson, sendParseError } from "../contracts/respond.ts";
import { ErrorCode } from "../../util/errors.ts";
import { type AnswerBudget, rewriteCost } from "../relay/answer-budget.ts";
import { isEventStream, send, upstreamFailure, type Upstream, type Vouched } from "../relay/forward.ts";
import { isStateless, mintUpstreamSession } from "../relay/mcp-sessions.ts";
import { checkSharedUse } from "../tool-sessions/isolation.ts";
import { inspectRequest, rewriteResult, type ParsedMessage } from "../relay/rewrite.ts";
import { end, MCP_ACCEPT } from "../relay/upstream-mcp.ts";

export interface LegacyOpen {
  /** The sealed gateway session id the POST URL carries. */
  id: string;
  user: string;
  upstream: Upstream;
  /** The POST path announced in the `endpoint` event. */
  endpoint: string;
  /** Prefix the gateway puts on resource URIs. */
  resourcePrefix: string;
  keepaliveMs: number;
  maxAnswerBytes: number;
  /** Who the gateway vouches for to the tool server (X-Forwarded-User & co.). */
  vouched: Vouched;
  /** Whether the tool server is a shared revision's, serving everyone (../tool-sessions/isolation.ts). */
  shared: boolean;
  /**
   * Runs with each keepalive, so the tool session does not idle out under an open stream,
   * and once the upstream session is open; `session` is the tool server's, once known.
   */
  onUse(session: string | undefined): void;
  /** The client's stream closed; `session` is the tool server's session it held, if one was open (now ended). */
  onClose(session: string | undefined): void;
}

interface Held extends LegacyOpen {
  stream: SseStream;
  abort: AbortController;
  /** The tool server's session id ("" for a server that keeps none), once opened. */
  session?: Promise<string>;
  known?: string;
}

const ACCEPTED = { status: "accepted" };

/** The legacy streams one gateway holds, by gateway session id. */
export class LegacyStreams {
  readonly #held = new Map<string, Held>();

  /** Answers read whole count against the gateway's one budget for them, as on the other routes. */
  constructor(
    private readonly budget: AnswerBudget,
    private readonly tracer?: Tracer,
  ) {}

  get size(): number {
    return this.#held.size;
  }

  /** Opens the client's stream and starts relaying the tool session's own stream into it. */
  open(res: ServerResponse, o: LegacyOpen): void {
    const stream = new SseStream(res, { keepaliveMs: o.keepaliveMs, headers: { ...CORS } });
    const held: Held = { ...o, stream, abort: new AbortController() };
    this.#held.set(o.id, held);
    const tick = setInterval(() => o.onUse(held.known), o.keepaliveMs);
    tick.unref();
    stream.onClose(() => {
      clearInterval(tick);
      held.abort.abort();
      if (this.#held.get(o.id) === held) this.#held.delete(o.id);
      // The tool server's session ends with the stream, as it would for a plain server.
      void held.session?.then(
        (session) => end(o.upstream, session),
        () => {},
      );
      o.onClose(held.known);
    });
    stream.send({ event: "endpoint", data: o.endpoint });
  }

  /** The session is open upstream: it is used, and its own stream is relayed while the client's is open. */
  #opened(held: Held, session: string): void {
    // The client left while the session opened: nothing else will end it.
    if (held.abort.signal.aborted) return void end(held.upstream, session);
    if (held.known !== undefined) return;
    held.known = session;
    held.onUse(session);
    if (session !== "") void this.#relayStandalone(held, session);
  }

  /** The upstream session a request other than the client's first initialize runs in. */
  #session(held: Held, msg: ParsedMessage): Promise<string> | undefined {
    if (held.session === undefined && msg.initialize) return undefined;
    return (held.session ??= mintUpstreamSession(held.upstream).then(
      (session) => (this.#opened(held, session), session),
      (err: unknown) => {
        held.session = undefined;
        throw err;
      },
    ));
  }

  /** A client's POST for a held stream: 202 at once, the answer on the stream. */
  async post(id: string, user: string, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const held = this.#held.get(id);
    if (!held || held.user !== user) throw new GatewayError("unknown_session", "No open event stream for this session on this gateway; open GET …/sse again");
    const tracing = this.tracer?.active === true;
    const msg = inspectRequest(body, held.resourcePrefix, tracing);
    if (!msg) {
      sendParseError(res);
      return;
    }
    // Traced as on the other routes; the span lasts until the answer went down the event stream.
    const traced = tracing ? continueTrace(this.tracer!, req.headers, msg) : undefined;
    const span = traced ? gatewaySpan(this.tracer!, traced.trace, msg) : null;
    let failed: string | undefined;
    try {
      await this.#forward(held, req, res, traced ? { ...msg, body: traced.body } : msg, traced?.fields);
    } catch (err) {
      failed = errorTypeOf(err);
      throw err;
    } finally {
      span?.end(failed);
    }
  }

  async #forward(
    held: Held,
    req: IncomingMessage,
    res: ServerResponse,
    msg: ParsedMessage,
    trace: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    // Every request runs in the stream's session (the gateway opens one if the client did not),
    // unless the tool server keeps none ("").
    checkSharedUse(held.shared, { stateless: isStateless(req), inSession: held.known !== "" });
    sendJson(res, 202, ACCEPTED);
    const requestId = idOf(msg.body);
    try {
      const upstreamSession = this.#session(held, msg);
      const session = upstreamSession ? await upstreamSession : undefined;
      const answer = await send(
        held.upstream,
        { method: "POST", path: "mcp", headers: req.headers, body: msg.body, session, accept: MCP_ACCEPT, vouched: held.vouched, trace },
        held.abort.signal,
      );
      if (!upstreamSession && answer.statusCode === 200) {
        const minted = answer.headers["mcp-session-id"];
        const id = typeof minted === "string" ? minted : "";
        held.session ??= Promise.resolve(id);
        this.#opened(held, id);
      }
      const method = msg.rewrite ? msg.method : undefined;
      if (isEventStream(answer)) return await this.#relayEvents(held, answer, method);
      if (answer.statusCode === 202) return void answer.resume();
      await this.budget.rewrite(answer, held.maxAnswerBytes, (raw, charge) => {
        // Parsed below when rewritten or a batch: the copies that makes are charged first.
        if (msg.rewrite || raw.toString("latin1", 0, 64).trimStart().startsWith("[")) charge(rewriteCost(raw));
        // An HTTP error is passed on only as an answer the client can match to its request.
        if ((answer.statusCode ?? 502) >= 400 && !answers(raw, requestId)) {
          if (requestId !== undefined) this.#error(held, requestId, `The tool server answered HTTP ${answer.statusCode}`);
          return;
        }
        if (raw.length === 0) return;
        const text = msg.rewrite && msg.method && answer.statusCode === 200 ? (rewriteResult(msg.method, raw) ?? raw.toString("utf8")) : raw.toString("utf8");
        this.#sendAll(held, text);
      });
    } catch (err) {
      if (held.abort.signal.aborted || requestId === undefined) return;
      this.#error(held, requestId, (err instanceof GatewayError ? err : upstreamFailure(err)).message);
    }
  }

  #error(held: Held, id: string | number, message: string): void {
    held.stream.send({ event: "message", data: JSON.stringify({ jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message } }) });
  }

  /** One JSON answer: a batch's entries go one per event, since legacy clients read one message per event. */
  #sendAll(held: Held, text: string): void {
    const batch = text.trimStart().startsWith("[") ? parseArray(text) : null;
    if (batch) for (const item of batch) held.stream.send({ event: "message", data: JSON.stringify(item) });
    else held.stream.send({ event: "message", data: text });
  }

  /** Relays a stream's messages; those of a `rewritten` method's answer are rewritten first. */
  async #relayEvents(held: Held, answer: IncomingMessage, rewritten?: string): Promise<void> {
    try {
      for await (const e of readEvents(answer, held.maxAnswerBytes)) {
        if (!carriesMessage(e)) continue;
        const data = rewritten ? (rewriteResult(rewritten, e.data) ?? e.data) : e.data;
        held.stream.send({ event: "message", data });
      }
    } catch {
      answer.destroy(); // an event past the bound, or the tool server went away
    }
  }

  /** The tool session's own stream (server-initiated requests and notifications), while the client's is open. */
  async #relayStandalone(held: Held, session: string): Promise<void> {
    try {
      const answer = await send(held.upstream, { method: "GET", path: "mcp", headers: { accept: "text/event-stream" }, session }, held.abort.signal);
      if (answer.statusCode !== 200 || !isEventStream(answer)) return void answer.resume();
      await this.#relayEvents(held, answer);
      // The tool server ended its session's stream (it stopped, or dropped the session):
      // ending the client's tells it to reconnect, which mints a new session.
      held.stream.close();
    } catch {
      // A server without a standalone stream still answers every POST on the held stream.
    }
  }
}

function idOf(body: Buffer): string | number | undefined {
  try {
    const value = JSON.parse(body.toString("utf8")) as { id?: unknown; method?: unknown };
    return typeof value.method === "string" && (typeof value.id === "string" || typeof value.id === "number") ? value.id : undefined;
  } catch {
    return undefined;
  }
}

function parseArray(text: string): unknown[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function answers(raw: Buffer, id: string | number | undefined): boolean {
  try {
    const value = JSON.parse(raw.toString("utf8")) as { jsonrpc?: unknown; id?: unknown };
    return value?.jsonrpc === "2.0" && id !== undefined && value.id === id;
  } catch {
    return false;
  }
}
