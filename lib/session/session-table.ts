// Session lifetime: minting ids, lookup, idle expiry and the cap. Behind SessionStore so
// another store can stand in later.
import { randomFillSync } from "node:crypto";
import { Session } from "./session.ts";

export interface SessionStore {
  /** Mints a session, or returns null when the table is full of live sessions. */
  create(): Session | null;
  get(id: string): Session | undefined;
  /** Ends the session; returns whether it existed. */
  delete(id: string): boolean;
  values(): IterableIterator<Session>;
  readonly size: number;
  /** Ends every idle session without an open stream. */
  sweep(): number;
  close(): void;
}

export interface SessionTableOptions {
  /** Idle time after which a session with no open stream ends. Default 30 min. */
  idleTimeoutMs?: number;
  /** Most sessions held at once. Default 10,000. */
  maxSessions?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

const ID_BYTES = 24;
/** Ids drawn per call into the CSPRNG (as crypto.randomUUID caches its entropy): one call per id cost a few µs and a Buffer. */
const IDS_PER_FILL = 128;
let pool: Buffer | null = null;
let used = IDS_PER_FILL;

export function newSessionId(): string {
  if (used === IDS_PER_FILL) {
    pool = randomFillSync(pool ?? Buffer.allocUnsafeSlow(ID_BYTES * IDS_PER_FILL));
    used = 0;
  }
  const at = ID_BYTES * used++;
  // 192 random bits, URL-safe and visible ASCII. Each byte is handed out once.
  return pool!.toString("base64url", at, at + ID_BYTES);
}

export class SessionTable implements SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;

  constructor(options: SessionTableOptions = {}) {
    this.#idleMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.#max = options.maxSessions ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, this.#idleMs / 4)));
    this.#timer.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  create(): Session | null {
    if (this.#sessions.size >= this.#max && !this.#makeRoom()) return null;
    const session = new Session(newSessionId(), this.#now(), this.#now);
    this.#sessions.set(session.id, session);
    return session;
  }

  get(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (session) session.lastActive = this.#now();
    return session;
  }

  delete(id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    session.end();
    return true;
  }

  values(): IterableIterator<Session> {
    return this.#sessions.values();
  }

  sweep(): number {
    const cutoff = this.#now() - this.#idleMs;
    let ended = 0;
    for (const session of this.#sessions.values()) {
      if (!session.held && session.lastActive <= cutoff) {
        this.delete(session.id);
        ended++;
      }
    }
    return ended;
  }

  /** At the cap, in one pass: end the expired sessions, or else the one idle longest without a stream. */
  #makeRoom(): boolean {
    const cutoff = this.#now() - this.#idleMs;
    let ended = false;
    let oldest: Session | null = null;
    for (const session of this.#sessions.values()) {
      if (session.held) continue;
      if (session.lastActive <= cutoff) ended = this.delete(session.id) || ended;
      else if (oldest === null || session.lastActive < oldest.lastActive) oldest = session;
    }
    return ended || (oldest !== null && this.delete(oldest.id));
  }

  close(): void {
    clearInterval(this.#timer);
    for (const id of [...this.#sessions.keys()]) this.delete(id);
  }
}
