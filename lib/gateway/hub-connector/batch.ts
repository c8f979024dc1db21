// A JSON-RPC batch posted to /mcp, answered as a hubmcp tool server answers one (lib/mcp/
// dispatcher.ts): every message handled as it would be alone, by the same code, its answer
// kept instead of sent; the requests' answers go back as one JSON array, nothing when the
// batch held only notifications and responses. A relayed call's answer is read from what the
// single-message path writes (JSON, or the events of its stream), so nothing about routing,
// audit, slots or renaming is decided twice.
import { type IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_MAX_BATCH_SIZE } from "../../server-options.ts";
import { isRecord } from "../../util/guards.ts";
import { ErrorCode, failure, type JsonRpcResponse } from "../../util/jsonrpc.ts";
import { httpStatus } from "../../http/status.ts";
import { carriesMessage, SseReader } from "../../http/sse-reader.ts";
import { replyOf } from "../../mcp/outcome.ts";
import { batchRefusal } from "../../mcp/dispatcher.ts";
import { CORS, knownFailure, sendJson } from "../contracts/respond.ts";

/** What a batch entry's answer is written to, and what it was. */
export type Sink = ServerResponse;

/**
 * Most bytes of answers one batch holds at once. A single call's answer streams through to the
 * client; a batch's must be held until the last entry is done, so a hundred large answers
 * would otherwise sit in memory together. An entry past the bound is refused alone.
 */
export const BATCH_ANSWER_BYTES = 16 * 1024 * 1024;

/** The bytes the entries of one batch hold, counted together. */
interface Held {
  bytes: number;
}

/**
 * One entry's answer, written by the single-message path as to the client and kept here.
 * An event stream (a relayed call's) yields its response; a request the tool sends the client
 * on it (elicitation, sampling, roots) can not be carried by a JSON array: that call is
 * refused, cancelled at the tool, and its exchange with the tool ended.
 */
class Kept extends ServerResponse {
  answer: JsonRpcResponse | null = null;
  readonly settled: Promise<void>;
  #settle: () => void = () => {};
  #text = "";
  #streaming: boolean | undefined;
  #done = false;
  #tooLarge = false;
  /** The one SSE parser; the held-bytes bound above is smaller than its own per-event bound. */
  readonly #events = new SseReader();

  constructor(
    req: IncomingMessage,
    private readonly id: unknown,
    private readonly cancel: (id: unknown) => void,
    private readonly held: Held,
  ) {
    super(req);
    this.settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  override write(chunk: string | Uint8Array): boolean {
    this.#take(chunk);
    return true;
  }

  override end(chunk?: unknown): this {
    if (typeof chunk === "string" || chunk instanceof Uint8Array) this.#take(chunk);
    if (this.#done) return this;
    // A stream that ended before its response, or a body that is none, is a call left unanswered.
    this.answer ??= this.#streaming ? this.#broken() : this.#response(this.#text);
    this.finished = true;
    this.#close();
    return this;
  }

  /** The batch's client left: this entry's call ends as it would alone. */
  abandon(): void {
    if (!this.#done) this.#close();
  }

  #take(chunk: string | Uint8Array): void {
    if (this.#done) return;
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (this.#tooLarge) return;
    this.held.bytes += text.length;
    if (this.held.bytes > BATCH_ANSWER_BYTES) {
      // The rest of this answer still flows through (the call is done, only its bytes are late) but is not held.
      this.#tooLarge = true;
      this.held.bytes -= this.#text.length + text.length;
      this.#text = "";
      this.answer = failure(this.id as never, {
        code: ErrorCode.InvalidRequest,
        message: "The answer is too large to be held in a batch: send this call alone",
      });
      return;
    }
    // A JSON answer opens with its value; an event stream with a comment (relay/forward.ts openStream).
    this.#streaming ??= !/^\s*[[{]/.test(text);
    if (!this.#streaming) {
      this.#text += text;
      return;
    }
    for (const event of this.#events.push(text)) if (carriesMessage(event)) this.#message(event.data);
  }

  /** One message of a relayed call's event stream: its response, or a request the batch can not carry. */
  #message(data: string): void {
    if (this.#done) return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      // Events the relay writes are JSON; one that is not is no answer, and the stream's end says so.
      return;
    }
    if (!isRecord(message)) return;
    if (typeof message.method === "string" && "id" in message) {
      this.#refuse(`The tool asked the client (${message.method.slice(0, 64)}), which an answer in a batch can not carry: send this call alone`);
    } else if (!("method" in message)) this.answer = message as unknown as JsonRpcResponse;
  }

  /** This entry alone answered with an error; its call cancelled at the tool and its exchange ended. */
  #refuse(message: string): void {
    this.answer = failure(this.id as never, { code: ErrorCode.InvalidRequest, message });
    // In a session the tool goes on past a client leaving (its answer could be resumed): it is told.
    this.cancel(this.id);
    this.#close();
  }

  #response(text: string): JsonRpcResponse | null {
    // A notification's 202, or a call cancelled meanwhile: owed nothing, as a tool server's batch leaves it out.
    if (this.statusCode === 202) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    return isRecord(value) && value.jsonrpc === "2.0" && ("result" in value || "error" in value) ? (value as unknown as JsonRpcResponse) : this.#broken();
  }

  #broken(): JsonRpcResponse {
    return failure(this.id as never, { code: ErrorCode.InternalError, message: "The tool gave no answer to this call" });
  }

  #close(): void {
    this.#done = true;
    this.emit("finish");
    this.emit("close");
    this.#settle();
  }
}

/**
 * Answers `batch` on `res`: `one` is the single-message path, writing to the sink it is given.
 * Same bounds as the tool server: empty or above its default batch size is one -32600.
 */
export async function answerBatch(
  batch: unknown[],
  req: IncomingMessage,
  res: ServerResponse,
  extra: Record<string, string>,
  one: (message: unknown, sink: Sink) => Promise<void>,
  cancel: (id: unknown) => void,
): Promise<void> {
  const bounds = batchRefusal(batch.length, DEFAULT_MAX_BATCH_SIZE);
  if (bounds) return sendJson(res, httpStatus(bounds), replyOf(bounds));
  const held: Held = { bytes: 0 };
  const kept = batch.map((message) => new Kept(req, isRecord(message) ? (message.id ?? null) : null, cancel, held));
  const abandon = (): void => {
    for (const k of kept) k.abandon();
  };
  res.once("close", abandon);
  try {
    await Promise.all(
      batch.map(async (message, i) => {
        const sink = kept[i]!;
        try {
          await one(message, sink);
        } catch (err) {
          const known = knownFailure(err);
          if (!known) throw err;
          sink.answer = failure(sink.answer?.id ?? (isRecord(message) ? (message.id as never) : null), {
            code: ErrorCode.InternalError,
            message: known.message,
          });
          sink.abandon();
        }
        await sink.settled;
      }),
    );
  } finally {
    res.off("close", abandon);
  }
  const answers = kept.map((k) => k.answer).filter((a): a is JsonRpcResponse => a !== null);
  if (answers.length === 0) {
    res.writeHead(202, { ...CORS, ...extra, "content-length": 0 });
    return void res.end();
  }
  sendJson(res, 200, answers, extra);
}
