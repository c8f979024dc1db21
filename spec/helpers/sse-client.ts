// A test client for server-sent events: a parser that follows the WHATWG
// event-stream rules (feed it bytes in any split, even one at a time) and a connection
// helper that opens a GET or POST over node:http and yields parsed events with timeouts.
//
//   const parser = new SseParser();  parser.push(bytes) → SseMessage[]; parser.comments
//   const c = await openSse(url, { method: "POST", headers, body });
//   c.status, c.headers, await c.next(), await c.nextMessage(), await c.until("endpoint"), await c.opened(), c.close()
import { request, type IncomingHttpHeaders } from "node:http";

export interface SseMessage {
  /** `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The last event id at dispatch (WHATWG: carried over from earlier events). */
  lastEventId: string;
  /** Whether this event block itself had an `id:` field. */
  hasId: boolean;
  /** `retry:` given in this event block, if any. */
  retry: number | undefined;
}

/** Incremental parser. Bytes may split anywhere, including inside CRLF or a UTF-8 sequence. */
export class SseParser {
  readonly comments: string[] = [];
  /** The reconnection time last announced by `retry:`. */
  retry: number | undefined;
  #decoder = new TextDecoder("utf-8");
  #line = "";
  #afterCR = false;
  #data = "";
  #hasData = false;
  #event = "";
  #lastId = "";
  #hasId = false;
  #blockRetry: number | undefined;
  #first = true;

  push(chunk: Uint8Array | string): SseMessage[] {
    let text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: SseMessage[] = [];
    for (const ch of text) {
      if (this.#afterCR) {
        this.#afterCR = false;
        if (ch === "\n") continue;
      }
      if (ch === "\r" || ch === "\n") {
        this.#afterCR = ch === "\r";
        this.#processLine(this.#line, out);
        this.#line = "";
      } else {
        this.#line += ch;
      }
    }
    return out;
  }

  #processLine(line: string, out: SseMessage[]): void {
    if (line === "") return this.#dispatch(out);
    if (line.startsWith(":")) {
      this.comments.push(line.slice(1).replace(/^ /, ""));
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") this.#event = value;
    else if (field === "data") {
      this.#data += `${value}\n`;
      this.#hasData = true;
    } else if (field === "id") {
      if (!value.includes("\0")) {
        this.#lastId = value;
        this.#hasId = true;
      }
    } else if (field === "retry") {
      if (/^\d+$/.test(value)) this.retry = this.#blockRetry = Number(value);
    }
  }

  #dispatch(out: SseMessage[]): void {
    if (this.#hasData) {
      out.push({
        event: this.#event || "message",
        data: this.#data.slice(0, -1),
        lastEventId: this.#lastId,
        hasId: this.#hasId,
        retry: this.#blockRetry,
      });
    }
    this.#data = "";
    this.#hasData = false;
    this.#event = "";
    this.#hasId = false;
    this.#blockRetry = undefined;
  }
}

export interface OpenSseOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A POST body; objects are sent as JSON. */
  body?: unknown;
  /** How long `next()` waits before rejecting; 5 s by default. */
  timeoutMs?: number;
}

export interface SseConnection {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body when the server answered with something other than an event stream. */
  text(): Promise<string>;
  /** Next event; rejects when the stream ends or the wait times out. */
  next(): Promise<SseMessage>;
  /** Next event with non-empty data (skips priming events), parsed as JSON. */
  nextMessage(): Promise<any>;
  /** Skips events until one named `event`. */
  until(event: string): Promise<SseMessage>;
  /** The stream's opening event: `endpoint` (a stream that minted its session, or /sse), else the priming event (an id, empty data). */
  opened(): Promise<SseMessage>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  comments: string[];
  close(): void;
}

/** Opens a GET (default) or POST and parses the answer as an event stream. */
export function openSse(url: string, options: OpenSseOptions = {}): Promise<SseConnection> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const method = options.method ?? (options.body === undefined ? "GET" : "POST");
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
  if (body !== undefined) headers["content-type"] ??= "application/json";
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const parser = new SseParser();
      const queue: SseMessage[] = [];
      const waiters: { resolve: (m: SseMessage) => void; reject: (e: Error) => void }[] = [];
      const raw: Buffer[] = [];
      let done = false;
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.on("data", (chunk: Buffer) => {
        raw.push(chunk);
        for (const m of parser.push(chunk)) {
          const w = waiters.shift();
          if (w) w.resolve(m);
          else queue.push(m);
        }
      });
      const finish = (): void => {
        if (done) return;
        done = true;
        endedResolve();
        for (const w of waiters.splice(0)) w.reject(new Error("stream ended"));
      };
      res.on("end", finish);
      res.on("close", finish);
      res.on("error", finish);
      const next = (): Promise<SseMessage> => {
        const item = queue.shift();
        if (item) return Promise.resolve(item);
        if (done) return Promise.reject(new Error("stream ended"));
        return new Promise((res2, rej2) => {
          const timer = setTimeout(() => {
            const i = waiters.indexOf(waiter);
            if (i !== -1) waiters.splice(i, 1);
            rej2(new Error(`no event within ${timeoutMs} ms`));
          }, timeoutMs);
          const waiter = {
            resolve: (m: SseMessage) => (clearTimeout(timer), res2(m)),
            reject: (e: Error) => (clearTimeout(timer), rej2(e)),
          };
          waiters.push(waiter);
        });
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: async () => {
          await ended;
          return Buffer.concat(raw).toString("utf8");
        },
        next,
        async nextMessage() {
          for (;;) {
            const m = await next();
            if (m.data.trim() !== "") return JSON.parse(m.data);
          }
        },
        async until(event: string) {
          for (;;) {
            const m = await next();
            if (m.event === event) return m;
          }
        },
        async opened() {
          for (;;) {
            const m = await next();
            if (m.event === "endpoint" || (m.hasId && m.data === "")) return m;
          }
        },
        ended,
        comments: parser.comments,
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
