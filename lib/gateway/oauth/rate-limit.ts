// A fixed-window counter per key (source IP). In memory and per process, unless the
// gateway shares its store between replicas (sharedLimits): then the windows are records
// in the store and every replica counts into the same one.
import type { RecordStore } from "../contracts/interfaces.ts";
import { SharedLimit } from "../contracts/store-limit.ts";

/** The store collections of the shared windows, one per limit; swept when an hour old. */
export const LIMITS = { register: "rate-register", login: "rate-login", authorize: "rate-authorize", account: "rate-account" } as const;

interface Window {
  start: number;
  count: number;
}

/** The window after one event at `now`, and the seconds to wait when over `max`. */
function count(window: Window | undefined, now: number, max: number, windowMs: number): { state: Window; wait: number } {
  const state = !window || now - window.start >= windowMs ? { start: now, count: 1 } : { start: window.start, count: window.count + 1 };
  return { state, wait: state.count <= max ? 0 : Math.max(1, Math.ceil((state.start + windowMs - now) / 1000)) };
}

export class FixedWindowLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(max: number, windowMs: number, now: () => number) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts one event for `key`; answers the seconds to wait when over the limit, else 0. */
  hit(key: string): number {
    const now = this.#now();
    if (!this.#windows.has(key) && this.#windows.size > 10_000) this.#sweep(now);
    const { state, wait } = count(this.#windows.get(key), now, this.#max, this.#windowMs);
    this.#windows.set(key, state);
    return wait;
  }

  /** The same windows as records of `collection` in `store`, shared by every replica on it. */
  sharedIn(store: RecordStore, collection: string): SharedLimit<Window> {
    return new SharedLimit<Window>(
      store,
      collection,
      (w, now) => count(w, now, this.#max, this.#windowMs),
      (key) => this.hit(key),
      this.#now,
    );
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.start >= this.#windowMs) this.#windows.delete(key);
  }
}

/** A limit as the OAuth endpoints use it: in the store when the replicas share limits, else this process's own. */
export function oauthLimit(
  config: { store: RecordStore; now: () => number; sharedLimits: boolean },
  collection: (typeof LIMITS)[keyof typeof LIMITS],
  max: number,
  windowMs: number,
): { hit(key: string): number | Promise<number> } {
  const local = new FixedWindowLimiter(max, windowMs, config.now);
  return config.sharedLimits ? local.sharedIn(config.store, collection) : local;
}
