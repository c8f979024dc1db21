// Incremental parser of a text/event-stream body (WHATWG HTML "server-sent events",
// event stream interpretation): fed decoded text in arbitrary pieces, it returns the
// events completed so far. Pure, so it can be fed one byte at a time in specs.

export interface SseEvent {
  /** `message` when the stream named none. */
  event: string;
  data: string;
  id: string | null;
}

export class SseReader {
  #buffer = "";
  #data: string[] = [];
  #event = "";
  #id: string | null = null;
  #lastWasCr = false;
  readonly #maxEventChars: number;

  constructor(maxEventChars = 16 * 1024 * 1024) {
    this.#maxEventChars = maxEventChars;
  }

  /** Feeds text; answers the events it completed. Throws when one event outgrows the bound. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // CRLF is one line end: the LF after a CR (perhaps in the next piece) ends nothing.
      const skip = c === 10 && this.#lastWasCr && i === start && this.#buffer === "";
      this.#lastWasCr = c === 13;
      if (skip) {
        start = i + 1;
        continue;
      }
      const line = this.#buffer + text.slice(start, i);
      this.#buffer = "";
      start = i + 1;
      const event = this.#line(line);
      if (event) events.push(event);
    }
    if (start < text.length) {
      this.#lastWasCr = false;
      this.#buffer += text.slice(start);
      if (this.#buffer.length > this.#maxEventChars) throw new Error("event stream line too long");
    }
    return events;
  }

  #line(line: string): SseEvent | null {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = "";
        return null;
      }
      const event: SseEvent = { event: this.#event || "message", data: this.#data.join("\n"), id: this.#id };
      this.#data = [];
      this.#event = "";
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#data.push(value);
      if (this.#data.reduce((n, d) => n + d.length, 0) > this.#maxEventChars) throw new Error("event stream event too large");
    } else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    return null;
  }
}
