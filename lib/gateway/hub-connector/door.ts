// One POST to /mcp as lib/mcp's dispatcher sees it (an Exchange) and as the client gets it:
// the outcome as JSON under the status lib/http/status.ts gives it, or an event stream once a
// relayed call streams (its progress, logging and a tool's questions travel before the
// answer), as a tool server answers a POST (lib/http/post-reply.ts). A batch's answer is one
// JSON array: nothing else travels with it.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Exchange } from "../../mcp/exchange.ts";
import { replyOf, type Outcome, type Reply } from "../../mcp/outcome.ts";
import { rawBytesOf } from "../../mcp/raw-answer.ts";
import { httpStatus } from "../../http/status.ts";
import { formatComment, formatEvent } from "../../http/sse.ts";
import { writeHeadFrom } from "../../proxy/headers.ts";
import type { JsonRpcMessage } from "../../util/jsonrpc.ts";
import type { Principal } from "../contracts/interfaces.ts";
import { CORS, type GatewayError } from "../contracts/respond.ts";
import { corsWith, openStream } from "../relay/forward.ts";
import { untilSent } from "../relay/answer-budget.ts";
import type { ConnectorContext } from "./context.ts";
import type { ConnectorSession } from "./sessions.ts";
import { writeMessage } from "./relay.ts";

/**
 * Most bytes of answers one batch holds at once. A single call's answer streams through to the
 * client; a batch's must be held until the last entry is done, so a hundred large answers
 * would otherwise sit in memory together. An entry past the bound is refused alone.
 */
export const BATCH_ANSWER_BYTES = 16 * 1024 * 1024;

export class Door implements Exchange {
  /** No lib/mcp session: /mcp's own lives in the shared store (`connector`). */
  readonly session = null;
  /** The /mcp session; undefined for a stateless request, and before initialize. */
  connector: ConnectorSession | undefined;
  /** Headers the answer carries (the Mcp-Session-Id). */
  readonly extra: Record<string, string> = {};
  /** A gateway refusal of a single message, answered under its own status while nothing was written yet. */
  failed: GatewayError | undefined;
  #streaming = false;
  #keepalive: NodeJS.Timeout | undefined;
  #pressure: Promise<void> | undefined;
  #held = 0;
  #sent: Promise<void> | undefined;
  readonly #gone = new Set<() => void>();

  constructor(
    readonly cc: ConnectorContext,
    readonly principal: Principal,
    readonly res: ServerResponse,
    /** A 2026-07-28 request: no session, results decorated by lib/mcp. */
    readonly isStateless: boolean,
    readonly batch: boolean,
  ) {
    res.once("close", () => {
      clearInterval(this.#keepalive);
      if (!res.writableFinished) for (const fn of this.#gone) fn();
    });
  }

  get req(): IncomingMessage {
    return this.res.req;
  }

  /** Whether a relayed answer may go through as the tool's bytes: lib/mcp decorates a stateless one, a batch checks each. */
  get raw(): boolean {
    return !this.isStateless && !this.batch;
  }

  /** True once the answer is an event stream: a refusal can then only be its last event. */
  get streaming(): boolean {
    return this.#streaming;
  }

  send(message: JsonRpcMessage): boolean {
    if (this.batch) return false;
    this.stream();
    const waiting = writeMessage(this.res, message);
    if (waiting) this.#pressure ??= waiting.then(() => void (this.#pressure = undefined));
    return true;
  }

  drained(): Promise<void> | undefined {
    return this.#pressure;
  }

  /** The answer streams from now: the client hears keepalives while the call runs. */
  stream(): void {
    if (this.#streaming || this.batch) return;
    this.#streaming = true;
    openStream(this.res, 200, corsWith(this.extra));
    this.#keepalive = setInterval(() => this.res.write(formatComment("keepalive")), this.cc.gw.keepaliveMs);
    this.#keepalive.unref();
  }

  /** Runs `fn` when the client leaves before its answer; the function returned stops that. */
  onGone(fn: () => void): () => void {
    this.#gone.add(fn);
    return () => this.#gone.delete(fn);
  }

  /** Resolves once the answer has left the process, or the client is gone: one wait for all of a batch's entries. */
  sent(): Promise<void> {
    this.#sent ??= untilSent(this.res);
    return this.#sent;
  }

  /** Counts an entry's answer against the batch's bound; false when it does not fit (then it is not held). */
  hold(bytes: number): boolean {
    if (this.#held + bytes > BATCH_ANSWER_BYTES) return false;
    this.#held += bytes;
    return true;
  }

  finish(outcome: Outcome): void {
    clearInterval(this.#keepalive);
    const reply = replyOf(outcome);
    const res = this.res;
    if (this.#streaming) {
      // Only a single call streams: its answer is the stream's last event (none for a call cancelled meanwhile).
      if (reply !== null) res.write(formatEvent({ event: "message", data: JSON.stringify(reply) }));
      res.end();
      return;
    }
    if (reply === null) {
      res.writeHead(202, { ...CORS, ...this.extra, "content-length": 0 });
      return void res.end();
    }
    const body = bodyOf(reply);
    const headers = corsWith(this.extra);
    headers.push("content-type", "application/json", "content-length", String(Buffer.byteLength(body)), "cache-control", "no-store");
    writeHeadFrom(res, httpStatus(outcome), headers);
    res.end(body);
  }
}

/** A relayed answer's own bytes when it passed through unread (never in a batch, see `raw`). */
function bodyOf(reply: Reply): string | Buffer {
  return (Array.isArray(reply) ? undefined : rawBytesOf(reply)) ?? JSON.stringify(reply);
}
