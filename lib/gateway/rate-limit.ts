// A token bucket per user: `burst` requests at once, refilled at `perSecond`. In memory
// per replica, so N replicas allow up to N times the rate; buckets of quiet users are
// dropped so the table stays small.

export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** 0 when the request may go, else the seconds to wait before retrying. */
  take(user: string, now = Date.now()): number {
    const bucket = this.#buckets.get(user) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (this.#buckets.size > 10_000) this.#prune(now);
    this.#buckets.set(user, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  #prune(now: number): void {
    const full = (this.burst / this.perSecond) * 1000;
    for (const [user, b] of this.#buckets) if (now - b.at > full) this.#buckets.delete(user);
  }
}
