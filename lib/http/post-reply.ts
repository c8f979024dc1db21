// How one POST to the MCP endpoint is answered (MCP basic/transports "Sending Messages to
// the Server", DECISIONS "Streams"): plain JSON, unless the request produces related
// messages before its response and the client accepts text/event-stream. The switch to
// SSE happens at the first such message, so a call that sends none stays on the JSON path.
import type { ServerResponse } from "node:http";
import type { Exchange, Outcome } from "../mcp/dispatcher.ts";
import type { JsonRpcMessage, JsonRpcResponse } from "../mcp/jsonrpc.ts";
import type { Session } from "../session/session.ts";
import type { Acceptable } from "./accept.ts";
import type { HttpApp } from "./app.ts";
import type { EventStream } from "./event-stream.ts";
import { CORS_HEADERS, sendJson } from "./respond.ts";
import { SseStream } from "./sse.ts";

const ACCEPTED = { status: "accepted" } as const;

export class PostReply implements Exchange {
  readonly session: Session | null;
  readonly #app: HttpApp;
  readonly #res: ServerResponse;
  readonly #sse: boolean;
  readonly #json: boolean;
  #stream: EventStream | null = null;
  #controller: AbortController | undefined;
  #finished = false;
  /** Why the answer can no longer reach anyone, once that is so. */
  #gone: Error | null = null;

  constructor(app: HttpApp, res: ServerResponse, session: Session | null, accept: Acceptable) {
    this.#app = app;
    this.#res = res;
    this.session = session;
    this.#sse = accept.streams;
    this.#json = accept.json;
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
  readonly send = (message: JsonRpcMessage): boolean => {
    if (!this.#finished && this.#sse) {
      (this.#stream ??= this.#upgrade()).send(message);
      return true;
    }
    return this.session ? this.session.send(message) : false;
  };

  /**
   * Ends the connection but not the stream (SSE polling, MCP basic/transports): the client
   * reconnects with GET and Last-Event-ID and receives the rest, response included.
   */
  closeStream(): void {
    if (this.#finished || !this.#sse || !this.session) return;
    (this.#stream ??= this.#upgrade()).detach();
  }

  finish(outcome: Outcome, headers: Record<string, string> | undefined): void {
    this.#finished = true;
    // A client that accepts only SSE still gets its answer, as a one-event stream.
    const stream = this.#stream ?? (!this.#json && outcome.kind !== "accepted" ? (this.#stream = this.#upgrade()) : null);
    if (stream) {
      if (outcome.kind === "single") stream.send(outcome.response);
      else if (outcome.kind === "batch") for (const r of outcome.responses as JsonRpcResponse[]) stream.send(r);
      stream.end();
      return;
    }
    if (outcome.kind === "accepted") return sendJson(this.#res, 202, ACCEPTED, headers);
    sendJson(this.#res, outcome.status, outcome.kind === "single" ? outcome.response : outcome.responses, headers);
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
