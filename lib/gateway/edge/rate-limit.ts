// A token bucket per user: `burst` requests at once, refilled at `perSecond`. In memory
// per replica, so N replicas allow up to N times the rate unless the buckets are kept in a
// shared store (sharedBuckets); buckets of quiet users are dropped so the table stays small.
import type { RecordStore } from "../contracts/interfaces.ts";
import { SharedLimit } from "../contracts/store-limit.ts";

interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket after one request at `now`, and the seconds to wait when it was empty. */
function takeFrom(bucket: Bucket | undefined, now: number, perSecond: number, burst: number): { state: Bucket; wait: number } {
  const tokens = Math.min(burst, (bucket?.tokens ?? burst) + ((now - (bucket?.at ?? now)) / 1000) * perSecond);
  if (tokens >= 1) return { state: { tokens: tokens - 1, at: now }, wait: 0 };
  return { state: { tokens, at: now }, wait: Math.max(1, Math.ceil((1 - tokens) / perSecond)) };
}

export class TokenBucketLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** 0 when the request may go, else the seconds to wait before retrying. */
  take(user: string, now = Date.now()): number {
    const { state, wait } = takeFrom(this.#buckets.get(user), now, this.perSecond, this.burst);
    if (this.#buckets.size > 10_000) this.#prune(now);
    this.#buckets.set(user, state);
    return wait;
  }

  /** The same buckets kept in `store` (one record per user), shared by every replica on it. */
  sharedIn(store: RecordStore): SharedLimit<Bucket> {
    return new SharedLimit<Bucket>(
      store,
      "rate-users",
      (b, now) => takeFrom(b, now, this.perSecond, this.burst),
      (user) => this.take(user),
    );
  }

  #prune(now: number): void {
    const full = (this.burst / this.perSecond) * 1000;
    for (const [user, b] of this.#buckets) if (now - b.at > full) this.#buckets.delete(user);
  }
}
