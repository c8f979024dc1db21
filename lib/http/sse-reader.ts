// Reading a text/event-stream body: the one parser every client side of hubmcp uses (the
// gateway reading tool servers' streamed answers and relaying legacy streams, hub_bridge reading
// answers). WHATWG HTML "Interpreting an event stream": fields in any order, `id`, `retry`,
// `event`, multi-line `data`, comments, CR / LF / CRLF line ends (a CR ending one chunk and
// the LF starting the next are one line end), a leading BOM, chunks split anywhere (UTF-8
// sequences included). Pure: fed chunks, it returns the events they completed, so specs
// feed it one byte at a time.
//
// Bounded and linear: every character is looked at once, data lines are joined once at
// dispatch, and each line (empty `data:` lines included) counts toward the size of the
// event being read, so no stream can make it hold more than `maxEventChars` or rescan
// what it already read.

export interface SseReadEvent {
  /** The `event` field; `message` when the stream named none. */
  event: string;
  /** The `data` lines joined with LF. */
  data: string;
  /** The last event id string at dispatch ("" when none was ever set); ids persist across events. */
  id: string;
}

/** What an event stream broke; `code` is stable. */
export class SseReadError extends Error {
  readonly code = "HUBMCP_SSE_EVENT_TOO_LARGE";
  constructor(readonly limit: number) {
    super(`event stream event larger than ${limit} characters`);
  }
}

export interface SseReaderOptions {
  /** Characters one event may span, field lines and line ends included; 16 Mi by default. */
  maxEventChars?: number;
}

const LF = 10;
const CR = 13;

export class SseReader {
  /** The reconnection time the stream last announced with `retry`, in ms. */
  retry: number | undefined;
  readonly #max: number;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The unfinished line carried over from earlier chunks. */
  #partial = "";
  #afterCr = false;
  #first = true;
  #data: string[] = [];
  #event = "";
  #lastId = "";
  /** Characters of the event being read, line ends included. */
  #size = 0;

  constructor(options: SseReaderOptions = {}) {
    this.#max = options.maxEventChars ?? 16 * 1024 * 1024;
  }

  /** Feeds bytes or decoded text; answers the events completed. Throws SseReadError past the bound. */
  push(chunk: string | Uint8Array): SseReadEvent[] {
    let text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const events: SseReadEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      if (c === LF && this.#afterCr && i === start && this.#partial === "") {
        // The LF of a CRLF whose CR ended the previous line (perhaps in the last chunk).
        this.#afterCr = false;
        start = i + 1;
        continue;
      }
      this.#afterCr = c === CR;
      const line = this.#partial === "" ? text.slice(start, i) : this.#partial + text.slice(start, i);
      this.#partial = "";
      start = i + 1;
      this.#grow(line.length + 1);
      const event = this.#line(line);
      if (event) events.push(event);
    }
    if (start < text.length) {
      this.#afterCr = false;
      this.#partial += text.slice(start);
      this.#grow(0);
    }
    return events;
  }

  /** Counts `n` more characters of the current event (the unfinished line counted as it stands). */
  #grow(n: number): void {
    this.#size += n;
    if (this.#size + this.#partial.length > this.#max) throw new SseReadError(this.#max);
  }

  #line(line: string): SseReadEvent | null {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 58 /* ":" */) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
    return null;
  }

  #dispatch(): SseReadEvent | null {
    this.#size = 0;
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = "";
    if (data.length === 0) return null;
    return { event: event || "message", data: data.join("\n"), id: this.#lastId };
  }
}

/**
 * Whether an event carries a JSON-RPC message (MCP streamable HTTP): a `message` event with
 * data. Priming events (an id and no data) and other event types carry none.
 */
export function carriesMessage(e: SseReadEvent): boolean {
  return e.event === "message" && e.data !== "";
}

/** The events of an event-stream body as they complete; throws SseReadError past `maxEventChars`. */
export async function* readEvents(
  body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  maxEventChars: number,
): AsyncGenerator<SseReadEvent> {
  const reader = new SseReader({ maxEventChars });
  for await (const chunk of body) yield* reader.push(chunk);
}
