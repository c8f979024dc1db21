// A quantile sketch in bounded memory (log-spaced buckets, as DDSketch): each value counts in
// the bucket of its logarithm base GAMMA, so any quantile it answers is within 1 % of a value
// actually seen, whatever the number of values; a year of calls costs at most a few thousand
// counters, never an array of every duration.

const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
/** Values at or under this (ms) count as zero: below a microsecond, nobody measures. */
const SMALLEST = 0.001;
const MAX_BUCKETS = 4096;

export class QuantileSketch {
  readonly #buckets = new Map<number, number>();
  #zeros = 0;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  add(value: number): void {
    if (!Number.isFinite(value)) return;
    this.#count++;
    if (value <= SMALLEST) {
      this.#zeros++;
      return;
    }
    const i = Math.ceil(Math.log(value) / LOG_GAMMA);
    this.#buckets.set(i, (this.#buckets.get(i) ?? 0) + 1);
    if (this.#buckets.size > MAX_BUCKETS) this.#collapseLowest();
  }

  /** The value at quantile `q` (0…1, nearest rank), within 1 %; undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.#count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = this.#zeros;
    if (rank <= seen) return 0;
    const keys = [...this.#buckets.keys()].sort((a, b) => a - b);
    for (const i of keys) {
      seen += this.#buckets.get(i)!;
      if (rank <= seen) return (2 * GAMMA ** i) / (GAMMA + 1);
    }
    return (2 * GAMMA ** keys.at(-1)!) / (GAMMA + 1);
  }

  /** Only values spread over more than 4096 buckets (a factor of 10^35) get here: the two lowest merge. */
  #collapseLowest(): void {
    const [a, b] = [...this.#buckets.keys()].sort((x, y) => x - y);
    this.#buckets.set(b!, this.#buckets.get(b!)! + this.#buckets.get(a!)!);
    this.#buckets.delete(a!);
  }
}
