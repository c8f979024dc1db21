// A rate limit counted in the store, so replicas sharing a store (PostgreSQL) share the
// limit instead of each allowing the full rate. The replica's own limit decides first, at
// once and without I/O: what it refuses never reaches the store, so a flood costs only its
// sender. What it lets through is counted into the key's record by RecordStore.update,
// atomic across processes, in batches: one write per key at a time (and at most one per
// SPACING_MS), carrying every request that came meanwhile, and at most `lanes` writes in
// flight for all keys together, so the bookkeeping never holds more than that many of the
// store's connections and the lookups every request needs keep the rest. Far from the
// limit a request goes without waiting for its write (see #roomFor), and such requests are
// written a hundred or so at a time (see #due). While the store is unreachable the
// replica's own limit has decided alone: a limit must not turn an outage into refusals of
// requests the lookup cache could still serve.
import type { RecordStore } from "./interfaces.ts";
import { isStoreUnavailable } from "./store-errors.ts";

/** One step of a limit: the key's next state, and the seconds to wait (0: go). */
export type LimitStep<S> = (state: S | undefined, now: number) => { state: S; wait: number };

/** Writes of limit records in flight at once, for every key together. */
const LANES = 2;
/** The least time between the starts of two writes of one key's record. */
const SPACING_MS = 10;

/** How long what this replica last wrote of a key may let requests go without waiting for the store. */
const TRUSTED_MS = 1000;
/** Most requests of room counted in a written state. */
const ROOM_CAP = 1024;
/** Requests that went at once are written when this many wait, or this long after the first. */
const LATER_COUNT = ROOM_CAP / 8;
const LATER_MS = 100;

interface Waiter {
  resolve(wait: number): void;
  reject(err: unknown): void;
}

/** A request that went at once: it is only counted. */
const COUNTED: Waiter = { resolve: () => {}, reject: () => {} };

/** What this replica last wrote of a key: how many more requests it had room for, and when. */
interface Known {
  room: number;
  at: number;
}

export class SharedLimit<S> {
  /** Requests waiting for their key's next write, per stored key. */
  readonly #waiting = new Map<string, Waiter[]>();
  /** Keys whose write is under way; their new requests wait for the next one. */
  readonly #writing = new Set<string>();
  /** Keys with waiters and no write under way, in the order they asked for a lane. */
  readonly #queued = new Set<string>();
  /** Requests in each key's write under way. */
  readonly #inWrite = new Map<string, number>();
  readonly #known = new Map<string, Known>();
  /** Keys whose requests all went at once, written when their timer fires. */
  readonly #later = new Map<string, NodeJS.Timeout>();
  /** Keys with a request waiting for the next write (not only requests that went at once). */
  readonly #awaited = new Set<string>();
  #inFlight = 0;

  constructor(
    private readonly store: RecordStore,
    private readonly collection: string,
    private readonly step: LimitStep<S>,
    /** This process's own limit: it decides first, and alone while the store is unreachable. */
    private readonly local: (key: string) => number,
    private readonly now: () => number = Date.now,
    private readonly lanes = LANES,
  ) {}

  /** Counts one event for `key`; answers the seconds to wait, or 0 (at once when this replica's own limit refuses). */
  hit(key: string): number | Promise<number> {
    const refused = this.local(key);
    if (refused > 0) return refused;
    const id = key.slice(0, 512);
    if (this.#roomFor(id)) {
      this.#enqueue(id, COUNTED);
      return 0;
    }
    return new Promise<number>((resolve, reject) => this.#enqueue(id, { resolve, reject }));
  }

  // Far from the limit a request need not wait for the store: it goes at once and is counted
  // in the next write. Only while the requests let through since this replica's last write
  // are at most half of the room that write left (so replicas each doing so stay near the
  // limit), and for a second at most; near the limit every request waits for its write.
  #roomFor(id: string): boolean {
    const known = this.#known.get(id);
    if (!known || this.now() - known.at > TRUSTED_MS) return false;
    const since = (this.#inWrite.get(id) ?? 0) + (this.#waiting.get(id)?.length ?? 0) + 1;
    return 2 * since <= known.room;
  }

  #enqueue(id: string, waiter: Waiter): void {
    const waiting = this.#waiting.get(id);
    if (waiting) waiting.push(waiter);
    else this.#waiting.set(id, [waiter]);
    if (waiter !== COUNTED) this.#awaited.add(id);
    if (!this.#writing.has(id)) this.#due(id);
  }

  /** Queues a key's write: at once when a request waits for it, else once enough have gone at once, or a while after. */
  #due(id: string): void {
    const waiting = this.#waiting.get(id)!;
    if (waiting.length < LATER_COUNT && !this.#awaited.has(id)) {
      if (!this.#later.has(id))
        this.#later.set(
          id,
          setTimeout(() => this.#flush(id), LATER_MS),
        );
      return;
    }
    this.#flush(id);
  }

  #flush(id: string): void {
    this.#queued.add(id);
    this.#pump();
  }

  /** How many requests in a row `state` lets go, up to ROOM_CAP. */
  #room(state: S): number {
    const now = this.now();
    let room = 0;
    for (let next = this.step(state, now); room < ROOM_CAP && next.wait === 0; next = this.step(next.state, now)) room++;
    return room;
  }

  #pump(): void {
    while (this.#inFlight < this.lanes && this.#queued.size > 0) {
      const id: string = this.#queued.values().next().value!;
      this.#queued.delete(id);
      void this.#write(id);
    }
  }

  /** After a key's write: the next one, with what came meanwhile. */
  #next(id: string): void {
    this.#writing.delete(id);
    this.#due(id);
  }

  async #write(id: string): Promise<void> {
    clearTimeout(this.#later.get(id));
    this.#later.delete(id);
    const batch = this.#waiting.get(id)!;
    this.#waiting.delete(id);
    this.#awaited.delete(id);
    this.#writing.add(id);
    this.#inWrite.set(id, batch.length);
    this.#inFlight++;
    const started = this.now();
    let waits: number[] = [];
    let failure: unknown;
    try {
      // `update` may run the change again after a conflict; the last run's answers are the ones stored.
      const stored = await this.store.update<S>(this.collection, id, (state) => {
        const now = this.now();
        waits = [];
        for (let i = 0; i < batch.length; i++) {
          const next = this.step(state, now);
          state = next.state;
          waits.push(next.wait);
        }
        return state;
      });
      if (this.#known.size >= 10_000) this.#known.clear();
      this.#known.set(id, { room: this.#room(stored!), at: this.now() });
    } catch (err) {
      this.#known.delete(id);
      if (isStoreUnavailable(err)) waits = [];
      else failure = err;
    }
    this.#inWrite.delete(id);
    this.#inFlight--;
    // Requests that came meanwhile go in the next write, which starts SPACING_MS after this one
    // did at the soonest: a person sending many at once gets them counted a few dozen to a
    // write, at the cost of waiting a few ms more themselves; a lone request never waits.
    const delay = started + SPACING_MS - this.now();
    if (!this.#waiting.has(id)) this.#writing.delete(id);
    else if (delay <= 0) this.#next(id);
    else setTimeout(() => this.#next(id), delay);
    this.#pump();
    batch.forEach((w, i) => (failure === undefined ? w.resolve(waits[i] ?? 0) : w.reject(failure)));
  }
}
