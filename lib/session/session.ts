// What the server remembers about one client between requests. Transport streams are
// attached through the small SessionStream interface so this file knows no HTTP.
import type { JsonRpcMessage } from "../util/jsonrpc.ts";

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A server-to-client channel: legacy `GET /sse`, the standalone `GET /mcp`, or stdout. */
export interface SessionStream {
  readonly kind: "sse" | "mcp" | "stdio";
  /** Returns false when the stream is gone or refused the message. */
  send(message: JsonRpcMessage): boolean;
  close(): void;
}

export interface ClientInfo {
  name: string;
  version: string;
  [key: string]: unknown;
}

export class Session {
  readonly id: string;
  readonly createdAt: number;
  lastActive: number;
  /** The revision agreed in `initialize`. */
  protocolVersion: string | null = null;
  clientInfo: ClientInfo | null = null;
  clientCapabilities: Record<string, unknown> = {};
  initialized = false;
  logLevel: LogLevel = "info";
  /** Made on first use: most sessions never open a stream, and 10,000 empty sets are 1.5 MB. */
  #streams: Set<SessionStream> | null = null;
  /** Runs when the session ends, for whoever holds work tied to it; made on first use. */
  #onEnd: (() => void)[] | null = null;

  readonly #clock: () => number;

  constructor(id: string, now: number, clock: () => number = Date.now) {
    this.id = id;
    this.createdAt = now;
    this.lastActive = now;
    this.#clock = clock;
  }

  /** Calls running in this session: like an open stream, they keep it from expiring. */
  #running = 0;

  /** Marks the session as used now (idle expiry counts from here), on the table's clock. */
  touch(): void {
    this.lastActive = this.#clock();
  }

  /** Holds the session open for a call; the returned function releases it (once). */
  hold(): () => void {
    this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.touch();
    };
  }

  /** The session's open streams (a transport adds and removes its own). */
  get streams(): Set<SessionStream> {
    return (this.#streams ??= new Set());
  }

  /** Idle expiry may end the session only when nothing holds it: no open stream, no running call. */
  get held(): boolean {
    return (this.#streams !== null && this.#streams.size > 0) || this.#running > 0;
  }

  onEnd(fn: () => void): void {
    (this.#onEnd ??= []).push(fn);
  }

  /**
   * Server-to-client traffic goes to one standalone stream (`GET /mcp`, stdout; MCP: never
   * the same message on two streams), else to the session's legacy `/sse` streams.
   */
  send(message: JsonRpcMessage): boolean {
    const streams = this.#streams;
    if (streams === null) return false;
    for (const stream of streams) if (stream.kind !== "sse" && stream.send(message)) return true;
    let sent = false;
    for (const stream of streams) if (stream.kind === "sse" && stream.send(message)) sent = true;
    return sent;
  }

  end(): void {
    const streams = this.#streams;
    if (streams !== null) {
      for (const stream of [...streams]) stream.close();
      streams.clear();
    }
    const onEnd = this.#onEnd;
    this.#onEnd = null;
    if (onEnd !== null) for (const fn of onEnd) fn();
  }
}
