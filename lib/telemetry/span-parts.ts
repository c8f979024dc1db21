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

  /** Keeps one span's JSON; false when the queue is full (the span is dropped). */
  add(json: string): boolean {
    if (this.#spans >= this.#maxSpans) return false;
    let part = this.#parts.at(-1);
    const room = part && part.spans < this.#spansPerPart ? part.buf.length - part.used : 0;
    // Three bytes a UTF-16 unit is the most UTF-8 takes: the text is measured only when that much might not fit.
    const most = 1 + json.length * 3;
    const need = room >= most && this.#bytes + most <= this.#maxBytes ? most : 1 + Buffer.byteLength(json);
    if (this.#bytes + need > this.#maxBytes) return false;
    if (!part || room < need) {
      part = { buf: need > PART_BYTES ? Buffer.allocUnsafeSlow(need) : (this.#free.pop() ?? Buffer.allocUnsafeSlow(PART_BYTES)), used: 0, spans: 0 };
      this.#parts.push(part);
    }
    part.buf[part.used] = COMMA;
    const written = 1 + part.buf.write(json, part.used + 1, "utf8");
    part.used += written;
    part.spans++;
    this.#spans++;
    this.#bytes += written;
    return true;
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
        for (const p of taken) if (p.buf.length === PART_BYTES && this.#free.length * PART_BYTES < this.#maxBytes) this.#free.push(p.buf);
      },
    };
  }
}
