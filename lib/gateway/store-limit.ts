// A rate limit counted in the store, so replicas sharing a store (PostgreSQL) share the
// limit instead of each allowing the full rate. The replica's own limit decides first, at
// once and without I/O: what it refuses never reaches the store, so a flood costs only its
// sender. What it lets through is counted into the key's record by RecordStore.update,
// atomic across processes, in batches: one write per key at a time (and at most one per
// SPACING_MS), carrying every request that came meanwhile, and at most `lanes` writes in
// flight for all keys together, so the bookkeeping never holds more than that many of the
// store's connections and the lookups every request needs keep the rest. While the store
// is unreachable the replica's own limit has decided alone: a limit must not turn an outage
// into refusals of requests the lookup cache could still serve.
import type { RecordStore } from "./contracts.ts";
import { isStoreUnavailable } from "./store/store-errors.ts";

/** One step of a limit: the key's next state, and the seconds to wait (0: go). */
export type LimitStep<S> = (state: S | undefined, now: number) => { state: S; wait: number };

/** Writes of limit records in flight at once, for every key together. */
const LANES = 2;
/** The least time between the starts of two writes of one key's record. */
const SPACING_MS = 10;

interface Waiter {
  resolve(wait: number): void;
  reject(err: unknown): void;
}

export class SharedLimit<S> {
  /** Requests waiting for their key's next write, per stored key. */
  readonly #waiting = new Map<string, Waiter[]>();
  /** Keys whose write is under way; their new requests wait for the next one. */
  readonly #writing = new Set<string>();
  /** Keys with waiters and no write under way, in the order they asked for a lane. */
  readonly #queued = new Set<string>();
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
    return new Promise<number>((resolve, reject) => {
      const waiting = this.#waiting.get(id);
      if (waiting) waiting.push({ resolve, reject });
      else this.#waiting.set(id, [{ resolve, reject }]);
      if (!this.#writing.has(id)) this.#queued.add(id);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.lanes && this.#queued.size > 0) {
      const id: string = this.#queued.values().next().value!;
      this.#queued.delete(id);
      void this.#write(id);
    }
  }

  #next(id: string): void {
    this.#writing.delete(id);
    this.#queued.add(id);
    this.#pump();
  }

  async #write(id: string): Promise<void> {
    const batch = this.#waiting.get(id)!;
    this.#waiting.delete(id);
    this.#writing.add(id);
    this.#inFlight++;
    const started = this.now();
    let waits: number[] = [];
    let failure: unknown;
    try {
      // `update` may run the change again after a conflict; the last run's answers are the ones stored.
      await this.store.update<S>(this.collection, id, (state) => {
        const now = this.now();
        waits = [];
        for (let i = 0; i < batch.length; i++) {
          const next = this.step(state, now);
          state = next.state;
          waits.push(next.wait);
        }
        return state;
      });
    } catch (err) {
      if (isStoreUnavailable(err)) waits = [];
      else failure = err;
    }
    this.#inFlight--;
    // Requests that came meanwhile go in the next write, which starts SPACING_MS after this one
    // did at the soonest: a person sending many at once gets them counted a few dozen to a
    // write, at the cost of waiting a few ms more themselves; a lone request never waits.
    const delay = started + SPACING_MS - this.now();
    if (!this.#waiting.has(id)) this.#writing.delete(id);
    else if (delay <= 0) this.#next(id);
    else setTimeout(() => this.#next(id), delay).unref();
    this.#pump();
    batch.forEach((w, i) => (failure === undefined ? w.resolve(waits[i] ?? 0) : w.reject(failure)));
  }
}
