// Server-sent events: the one place frames are written. Owns framing, the keepalive
// comment and the guard against a client that stops reading; nothing else.
import type { ServerResponse } from "node:http";

export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
  /** Reconnection delay the client should use, in ms. */
  retry?: number;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
} as const;

function checkField(name: string, value: string): string {
  if (/[\r\n\0]/.test(value)) throw new TypeError(`SSE ${name} must not contain line breaks or NUL`);
  return value;
}

/** Frames one event. Multi-line data becomes several `data:` lines, whatever the line break. */
export function formatEvent(e: SseEvent): string {
  let out = "";
  if (e.event !== undefined) out += `event: ${checkField("event", e.event)}\n`;
  if (e.id !== undefined) out += `id: ${checkField("id", e.id)}\n`;
  if (e.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(e.retry))}\n`;
  const data = e.data;
  if (data.indexOf("\n") === -1 && data.indexOf("\r") === -1) return `${out}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export function formatComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

export interface SseStreamOptions {
  /** Interval of the `: keepalive` comment; 15 s by default. */
  keepaliveMs?: number;
  /** Bytes the client may leave unread before the stream is dropped; 4 MiB by default. */
  maxBufferedBytes?: number;
  headers?: Record<string, string | number>;
  status?: number;
}

export class SseStream {
  readonly #res: ServerResponse;
  readonly #maxBuffered: number;
  readonly #timer: NodeJS.Timeout;
  readonly #onClose: (() => void)[] = [];
  #closed = false;

  constructor(res: ServerResponse, options: SseStreamOptions = {}) {
    this.#res = res;
    this.#maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
    res.writeHead(options.status ?? 200, { ...options.headers, ...SSE_HEADERS });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.#timer = setInterval(() => this.#write(formatComment("keepalive")), options.keepaliveMs ?? 15_000);
    this.#timer.unref();
    res.once("close", () => this.#finish());
    if (res.destroyed) this.#finish();
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(event: SseEvent): boolean {
    return this.#write(formatEvent(event));
  }

  comment(text: string): boolean {
    return this.#write(formatComment(text));
  }

  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#onClose.push(fn);
  }

  /**
   * Ends the stream. `done(flushed)` says whether everything written was handed to the
   * socket, so a caller can keep what a vanished client may still ask to have replayed.
   */
  close(done?: (flushed: boolean) => void): void {
    if (this.#closed) {
      done?.(false);
      return;
    }
    if (done) {
      const res = this.#res;
      let called = false;
      const once = (flushed: boolean): void => {
        if (called) return;
        called = true;
        done(flushed);
      };
      const socket = res.socket;
      if (!socket || socket.destroyed) once(false);
      res.once("finish", () => once(true));
      res.once("close", () => once(res.writableFinished));
    }
    this.#res.end();
    this.#finish();
  }

  #write(frame: string): boolean {
    if (this.#closed) return false;
    if (this.#res.writableLength > this.#maxBuffered) {
      // The client stopped reading; holding more would only grow memory.
      this.#res.destroy();
      this.#finish();
      return false;
    }
    this.#res.write(frame);
    return true;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    for (const fn of this.#onClose.splice(0)) fn();
  }
}
