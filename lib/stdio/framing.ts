// MCP's stdio transport framing, the one used by serveStdio and hub_bridge: one JSON-RPC
// message per line, UTF-8, no embedded newlines (MCP basic/transports "stdio"). Reading splits
// a byte stream into lines with a bound on line length; writing serialises one message per
// line. Nothing else may be written to the output: hosts treat any other byte on stdout as a
// protocol error.
import type { Readable, Writable } from "node:stream";

export interface LineEvents {
  /** A complete line that parsed as JSON. */
  message(value: unknown): void;
  /** A line that was not JSON, or longer than the bound (its rest is skipped). */
  malformed(reason: "parse" | "too-long"): void;
  /** The input ended. */
  end(): void;
}

/** Splits bytes into lines. Pure apart from the callbacks, so it can be fed one byte at a time. */
export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;
  readonly #maxLineBytes: number;
  readonly #onLine: (line: string | null) => void;

  /** `onLine(null)` reports a line that outgrew the bound. */
  constructor(maxLineBytes: number, onLine: (line: string | null) => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, nl));
      start = nl + 1;
      if (this.#skipping) this.#skipping = false;
      else this.#onLine(Buffer.concat(this.#parts, this.#size).toString("utf8"));
      this.#parts = [];
      this.#size = 0;
    }
    this.#take(chunk.subarray(start));
  }

  #take(piece: Buffer): void {
    if (this.#skipping || piece.length === 0) return;
    if (this.#size + piece.length > this.#maxLineBytes) {
      this.#skipping = true;
      this.#parts = [];
      this.#size = 0;
      this.#onLine(null);
      return;
    }
    this.#parts.push(piece);
    this.#size += piece.length;
  }
}

/**
 * Reads one JSON message per line from `input` until it ends, closes or fails (`end` is called
 * once). Answers a function that stops reading: it detaches and pauses the input, so a stdin
 * that is still open no longer keeps the process alive.
 */
export function readLines(input: Readable, events: LineEvents, maxLineBytes = 16 * 1024 * 1024): () => void {
  const splitter = new LineSplitter(maxLineBytes, (line) => {
    if (line === null) return events.malformed("too-long");
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return events.malformed("parse");
    }
    events.message(value);
  });
  let ended = false;
  const onData = (chunk: Buffer | string): void => splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    events.end();
  };
  input.on("data", onData);
  input.once("end", onEnd);
  input.once("close", onEnd);
  input.once("error", onEnd);
  return () => {
    input.off("data", onData);
    input.pause();
  };
}

export interface LineWriter {
  /** Queues one message as one line; false when it is dropped (the output broke or ended). */
  (message: unknown): boolean;
  /** Writes what is queued now, before the caller ends the output or the process. */
  flush(): void;
}

/**
 * Writes one message per line. The lines answered while one batch of promise jobs runs leave
 * in one write: a write per message made the syscalls, not the messages, the cost of the transport.
 * After the output breaks (host gone: EPIPE) `onBroken` is called once and writes are dropped,
 * instead of the error ending the process.
 */
export function lineWriter(output: Writable, onBroken: () => void): LineWriter {
  let broken = false;
  let pending = "";
  let scheduled = false;
  output.on("error", () => {
    if (broken) return;
    broken = true;
    pending = "";
    onBroken();
  });
  const flush = (): void => {
    scheduled = false;
    const text = pending;
    pending = "";
    if (text !== "" && !broken && !output.destroyed && !output.writableEnded) output.write(text);
  };
  const send = (message: unknown): boolean => {
    if (broken || output.destroyed || output.writableEnded) return false;
    // JSON.stringify never emits a raw newline: those inside strings are escaped.
    pending += `${JSON.stringify(message)}\n`;
    if (!scheduled) {
      scheduled = true;
      // After the promise jobs already queued: the answers settled by one chunk of input leave together.
      process.nextTick(flush);
    }
    return true;
  };
  return Object.assign(send, { flush });
}
