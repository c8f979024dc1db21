// A fixed-window counter per key (source IP). In memory and per process on purpose: it only
// has to blunt a registration flood, and a restart forgetting it is harmless.
export class RateLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(max: number, windowMs: number, now: () => number) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts one event for `key`; answers the seconds to wait when over the limit, else 0. */
  hit(key: string): number {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      if (this.#windows.size > 10_000) this.#sweep(now);
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= this.#max) return 0;
    return Math.max(1, Math.ceil((window.start + this.#windowMs - now) / 1000));
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.start >= this.#windowMs) this.#windows.delete(key);
  }
}
