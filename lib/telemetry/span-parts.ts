// Finished spans waiting for their export, kept as OTLP JSON bytes in reused buffers outside
// the JavaScript heap. Kept as objects, a batch of spans lived long enough to be promoted to
// V8's old generation and was then collected there: twice the full collections and five
// microseconds of collection per call on the traced gateway, and with one buffer for the
// whole batch at export, three times the page faults (issue 39). Pure: no I/O, no clock.

/** A part's size: many spans a part, and small enough for the allocator to reuse its memory. */
const PART_BYTES = 16 * 1024;
/** A span is written with a comma before it; a batch's first part is sent without it. */
const COMMA = 0x2c;

interface Part {
  buf: Buffer;
  used: number;
  spans: number;
}

/** Spans taken for one export: their bytes (comma-separated), and `release` once the bytes are no longer read. */
export interface TakenSpans {
  chunks: Buffer[];
  spans: number;
  /** Gives the buffers back for reuse: only once whatever sent them is done with them. */
  release(): void;
}

/** Writes one span's bytes into `buf` from `at` (there is room for the bound given with it); returns where they end. */
export type SpanWriter<T> = (item: T, buf: Buffer, at: number) => number;

export class SpanParts {
  readonly #spansPerPart: number;
  readonly #maxSpans: number;
  readonly #maxBytes: number;
  #parts: Part[] = [];
  #free: Buffer[] = [];
  #spans = 0;
  #bytes = 0;

  /** `spansPerPart`: a part closes when it holds that many (a batch is whole parts). */
  constructor(limits: { spansPerPart: number; maxSpans: number; maxBytes: number }) {
    this.#spansPerPart = Math.max(1, limits.spansPerPart);
    this.#maxSpans = limits.maxSpans;
    this.#maxBytes = limits.maxBytes;
  }

  /** Spans held. */
  get size(): number {
    return this.#spans;
  }

  /**
   * Keeps one span, written by `write` (at most `bound` bytes); false when the queue is full by
   * spans or by bytes (the span is dropped, and nothing queued changes).
   */
  add<T>(item: T, bound: number, write: SpanWriter<T>): boolean {
    if (this.#spans >= this.#maxSpans) return false;
    const last = this.#parts.at(-1);
    const need = 1 + bound;
    const fits = last !== undefined && last.spans < this.#spansPerPart && last.buf.length - last.used >= need;
    const part = fits
      ? last
      : { buf: need > PART_BYTES ? Buffer.allocUnsafeSlow(need) : (this.#free.pop() ?? Buffer.allocUnsafeSlow(PART_BYTES)), used: 0, spans: 0 };
    part.buf[part.used] = COMMA;
    const written = write(item, part.buf, part.used + 1) - part.used;
    // Measured once written, not guessed from the bound: a span that fits is never refused.
    if (this.#bytes + written > this.#maxBytes) {
      if (!fits) this.#giveBack(part.buf);
      return false;
    }
    if (!fits) this.#parts.push(part);
    part.used += written;
    part.spans++;
    this.#spans++;
    this.#bytes += written;
    return true;
  }

  #giveBack(buf: Buffer): void {
    if (buf.length === PART_BYTES && this.#free.length * PART_BYTES < this.#maxBytes) this.#free.push(buf);
  }

  /** Whole parts, oldest first, up to `max` spans (at least one part); null when empty. */
  take(max: number): TakenSpans | null {
    if (this.#parts.length === 0) return null;
    const taken: Part[] = [];
    let spans = 0;
    while (this.#parts.length > 0 && (taken.length === 0 || spans + this.#parts[0]!.spans <= max)) {
      const part = this.#parts.shift()!;
      taken.push(part);
      spans += part.spans;
      this.#bytes -= part.used;
    }
    this.#spans -= spans;
    const chunks = taken.map((p, i) => p.buf.subarray(i === 0 ? 1 : 0, p.used));
    let released = false;
    return {
      chunks,
      spans,
      release: () => {
        // Twice would hand one buffer to two parts.
        if (released) return;
        released = true;
        for (const p of taken) this.#giveBack(p.buf);
      },
    };
  }
}
