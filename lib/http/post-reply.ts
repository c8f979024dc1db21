// How one POST to the MCP endpoint is answered (MCP basic/transports "Sending Messages to
// the Server"): plain JSON, unless the request produces related messages before its
// response and the client accepts text/event-stream. The switch to SSE happens at the
// first such message, so a call that sends none stays on the JSON path.
//
// A POST to a legacy `/sse` session's endpoint never blocks its client: some clients send one POST
// at a time, so a POST held while its call waits on the client (an elicitation) could never
// be answered, and a quick call would wait behind a slow one. Such a POST is released with
// 202 once its call sends a request to the client or outlasts a short hold; the response
// then travels on the `/sse` stream only.
import type { ServerResponse } from "node:http";
import { replyOf, type Outcome } from "../mcp/outcome.ts";
import type { Exchange } from "../mcp/exchange.ts";
import type { JsonRpcMessage } from "../util/jsonrpc.ts";
import type { Session } from "../session/session.ts";
import type { Acceptable } from "./accept.ts";
import type { HttpState } from "./types.ts";
import type { EventStream } from "./event-stream.ts";
import { CORS_HEADERS, sendRpcJson } from "./respond.ts";
import { SseStream } from "./sse.ts";
import { httpStatus } from "./status.ts";
import { parentFromHeaders, type ParentContext } from "../util/trace-context.ts";

const ACCEPTED = { status: "accepted" } as const;

export class PostReply implements Exchange {
  readonly session: Session | null;
  readonly #app: HttpState;
  readonly #res: ServerResponse;
  readonly #sse: boolean;
  readonly #json: boolean;
  #stream: EventStream | null = null;
  #controller: AbortController | undefined;
  #finished = false;
  /** A legacy `/sse` session's POST: released early, its answer goes on the stream. */
  readonly #legacy: boolean;
  #released = false;
  #holdTimer: NodeJS.Timeout | undefined;
  /** Why the answer can no longer reach anyone, once that is so. */
  #gone: Error | null = null;

  /** `legacyEndpoint`: the POST came to `/`, the endpoint a `/sse` stream names. */
  constructor(app: HttpState, res: ServerResponse, session: Session | null, accept: Acceptable, legacyEndpoint: boolean) {
    this.#app = app;
    this.#res = res;
    this.session = session;
    this.#sse = accept.streams;
    this.#json = accept.json;
    this.#legacy = legacyEndpoint && !accept.streams && session !== null && hasLegacyStream(session);
    if (this.#legacy) {
      this.#holdTimer = setTimeout(() => this.#release(), app.options.sseHoldMs);
      this.#holdTimer.unref();
    }
  }

  /** The W3C `traceparent`/`tracestate`/`baggage` headers, read only when a call asks for its trace. */
  get traceParent(): ParentContext | null {
    return parentFromHeaders(this.#res.req.headers);
  }

  /** Made on first use. Aborts when the client hangs up and nothing else could take the result. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const ac = (this.#controller = new AbortController());
      if (this.#gone) ac.abort(this.#gone);
      const res = this.#res;
      const onClose = (): void => {
        if (this.#finished || res.writableFinished) return;
        const session = this.session;
        // A session's SSE reply can be resumed with Last-Event-ID; a legacy /sse stream gets the broadcast.
        if (session && (this.#stream !== null || session.streams.size > 0)) return;
        this.#abort("The client went away");
      };
      if (res.destroyed) onClose();
      else res.once("close", onClose);
    }
    return this.#controller.signal;
  }

  /** A message related to this request: on this POST's stream when the client accepts one. */
  send(message: JsonRpcMessage): boolean {
    // A request to the client means the call now waits on it: let the client's POST go.
    if (this.#legacy && "id" in message && "method" in message) this.#release();
    if (!this.#finished && this.#sse) {
      (this.#stream ??= this.#upgrade()).send(message);
      return true;
    }
    return this.session ? this.session.send(message) : false;
  }

  /**
   * Ends the connection but not the stream (SSE polling, MCP basic/transports): the client
   * reconnects with GET and Last-Event-ID and receives the rest, response included.
   */
  detach(): void {
    if (this.#legacy) return this.#release();
    if (this.#finished || !this.#sse || !this.session) return;
    (this.#stream ??= this.#upgrade()).detach();
  }

  /** True when the answer goes on the legacy `/sse` stream only: the POST was already released. */
  get released(): boolean {
    return this.#released;
  }

  /** The outcome travels under the status lib/http/status.ts gives it; a session's answer names the session (Mcp-Session-Id). */
  finish(outcome: Outcome): void {
    this.#finished = true;
    clearTimeout(this.#holdTimer);
    if (this.#released) return;
    const reply = replyOf(outcome);
    // A client that accepts only SSE still gets its answer, as a one-event stream.
    const stream = this.#stream ?? (!this.#json && reply !== null ? (this.#stream = this.#upgrade()) : null);
    if (stream) {
      if (Array.isArray(reply)) for (const r of reply) stream.send(r);
      else if (reply !== null) stream.send(reply);
      stream.end();
      return;
    }
    const sessionId = this.session === null ? null : this.session.id;
    sendRpcJson(this.#res, httpStatus(outcome), reply ?? ACCEPTED, sessionId);
  }

  #release(): void {
    if (this.#released || this.#finished) return;
    this.#released = true;
    clearTimeout(this.#holdTimer);
    sendRpcJson(this.#res, 202, ACCEPTED, this.session === null ? null : this.session.id);
  }

  #abort(reason: string): void {
    this.#gone ??= new Error(reason);
    if (this.#controller && !this.#controller.signal.aborted) this.#controller.abort(this.#gone);
  }

  #upgrade(): EventStream {
    const app = this.#app;
    const stream = app.streams.create(this.session, "p");
    // The session ended with the call still running: its stream, and so its answer, is gone.
    stream.onDiscard(() => this.#abort("The session ended"));
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return stream;
    const headers: Record<string, string> = { ...CORS_HEADERS };
    if (this.session) headers["mcp-session-id"] = this.session.id;
    const sse = new SseStream(res, {
      keepaliveMs: app.options.keepaliveMs,
      maxBufferedBytes: app.options.maxStreamBufferBytes,
      headers,
    });
    stream.attach(sse, null);
    return stream;
  }
}

function hasLegacyStream(session: Session): boolean {
  for (const stream of session.streams) if (stream.kind === "sse") return true;
  return false;
}
