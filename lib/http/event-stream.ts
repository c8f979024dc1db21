// A resumable server-to-client stream (MCP basic/transports "Resumability and
// Redelivery"): event ids `<stream>.<seq>`, a bounded buffer of what was sent, and a
// connection that may come and go. A client that reconnects with Last-Event-ID gets what
// it missed on that stream and nothing from any other.
import type { JsonRpcMessage } from "../util/jsonrpc.ts";
import type { Session } from "../session/session.ts";
import type { SseEvent, SseStream } from "./sse.ts";

export interface ReplayLimits {
  /** Events kept per stream for replay. */
  maxEvents: number;
  /** Bytes of event data kept per stream for replay. */
  maxBytes: number;
  /** Reconnection delay sent in the priming event, in ms. */
  retryMs: number;
}

interface Kept {
  seq: number;
  event: SseEvent;
}

export class EventStream {
  readonly key: string;
  readonly #limits: ReplayLimits;
  readonly #kept: Kept[] = [];
  #keptBytes = 0;
  #seq = 0;
  #sse: SseStream | null = null;
  #ended = false;
  #onDone: (() => void) | null = null;
  #onDiscard: (() => void) | null = null;

  constructor(key: string, limits: ReplayLimits) {
    this.key = key;
    this.#limits = limits;
  }

  get attached(): boolean {
    return this.#sse !== null && !this.#sse.closed;
  }

  /** True once the stream's last message (a POST's response) was sent. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Called once the stream is finished and nobody can resume it usefully. */
  onDone(fn: () => void): void {
    this.#onDone = fn;
  }

  /**
   * Puts a connection on this stream: the priming event (an id and, by default, empty data,
   * with `retry`), then every kept event after `afterSeq`, then live traffic. `primer` gives
   * the priming event a name and data (GET /mcp that minted its session opens with its
   * `endpoint` event); a `note` goes before it as a comment, which every client skips.
   */
  attach(sse: SseStream, afterSeq: number | null, primer?: { event: string; data: string } | { note: string }): void {
    if (this.#sse && this.#sse !== sse) this.#sse.close();
    this.#sse = sse;
    if (primer && "note" in primer) sse.comment(primer.note);
    const named = primer && "event" in primer ? primer : undefined;
    sse.send({ ...named, id: this.#id(++this.#seq), data: named?.data ?? "", retry: this.#limits.retryMs });
    if (afterSeq !== null) for (const k of this.#kept) if (k.seq > afterSeq) sse.send(k.event);
    sse.onClose(() => {
      if (this.#sse === sse) this.#sse = null;
    });
    if (this.#ended) this.#finishOn(sse);
  }

  /** Sends an event with the next id; kept for replay. False when it could neither be sent nor kept. */
  send(message: JsonRpcMessage, event = "message"): boolean {
    if (this.#ended) return false;
    const e: SseEvent = { event, id: this.#id(++this.#seq), data: JSON.stringify(message) };
    this.#keep(e);
    if (this.#sse) this.#sse.send(e);
    return true;
  }

  /** The stream's last message went out: close the connection; a detached stream waits for its resume. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#sse) this.#finishOn(this.#sse);
    else if (this.#kept.length === 0) this.#done();
  }

  /** Closes the last connection; the stream is forgotten only once its end surely went out. */
  #finishOn(sse: SseStream): void {
    sse.close((flushed) => {
      if (flushed) this.#done();
    });
  }

  /** Closes the connection but keeps the stream, so the client polls back with Last-Event-ID. */
  detach(): void {
    this.#sse?.close();
  }

  /** Runs if the stream is thrown away before its end went out (its session ended). */
  onDiscard(fn: () => void): void {
    this.#onDiscard = fn;
  }

  /** Forgets the stream entirely (session ended). */
  close(): void {
    const discarded = !this.#ended;
    this.#ended = true;
    this.#kept.length = 0;
    this.#sse?.close();
    this.#done();
    if (discarded) this.#onDiscard?.();
    this.#onDiscard = null;
  }

  #id(seq: number): string {
    return `${this.key}.${seq}`;
  }

  #keep(e: SseEvent): void {
    this.#kept.push({ seq: this.#seq, event: e });
    this.#keptBytes += e.data.length;
    while (this.#kept.length > this.#limits.maxEvents || (this.#keptBytes > this.#limits.maxBytes && this.#kept.length > 1)) {
      this.#keptBytes -= this.#kept.shift()!.event.data.length;
    }
  }

  #done(): void {
    const fn = this.#onDone;
    this.#onDone = null;
    fn?.();
  }
}

/** Parses `<stream>.<seq>`; null for anything we did not mint. */
export function parseEventId(id: string): { key: string; seq: number } | null {
  const dot = id.lastIndexOf(".");
  const digits = id.slice(dot + 1);
  if (dot <= 0 || !/^\d{1,15}$/.test(digits)) return null;
  return { key: id.slice(0, dot), seq: Number(digits) };
}

/** The resumable streams of each session, found again by the key in an event id. */
export class StreamDirectory {
  readonly #bySession = new WeakMap<Session, Map<string, EventStream>>();
  readonly #limits: ReplayLimits;
  /** Most streams one session keeps for resumption; the oldest go first. */
  readonly #maxPerSession: number;
  #next = 0;

  constructor(limits: ReplayLimits, maxPerSession = 32) {
    this.#limits = limits;
    this.#maxPerSession = maxPerSession;
  }

  /** A new stream; registered under `session` when there is one (session-less streams cannot resume). */
  create(session: Session | null, prefix: "g" | "p"): EventStream {
    const stream = new EventStream(`${prefix}${(this.#next++).toString(36)}`, this.#limits);
    if (!session) return stream;
    let table = this.#bySession.get(session);
    if (!table) {
      this.#bySession.set(session, (table = new Map()));
      const own = table;
      session.onEnd(() => {
        for (const s of [...own.values()]) s.close();
        own.clear();
      });
    }
    if (table.size >= this.#maxPerSession) this.#evict(table);
    table.set(stream.key, stream);
    const own = table;
    stream.onDone(() => {
      if (own.get(stream.key) === stream) own.delete(stream.key);
    });
    return stream;
  }

  /** Makes room: the oldest stream nobody is connected to, else the oldest of all. */
  #evict(table: Map<string, EventStream>): void {
    let victim: EventStream | undefined;
    for (const s of table.values()) {
      if (!s.attached) {
        victim = s;
        break;
      }
      victim ??= s;
    }
    victim!.close();
  }

  find(session: Session, key: string): EventStream | undefined {
    return this.#bySession.get(session)?.get(key);
  }

  /** Streams `session` keeps for resumption. */
  count(session: Session): number {
    return this.#bySession.get(session)?.size ?? 0;
  }
}
