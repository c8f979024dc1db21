// One finished span as hubmcp records it: what the OTLP encoder and the diagnostics channel see.
// Only names, ids and the attributes the MCP semantic conventions list; never arguments or results.
import type { TraceContext } from "../util/trace-context.ts";

export type AttributeValue = string | number | boolean;

/** OTLP's SpanKind numbers. */
export const SpanKind = { internal: 1, server: 2, client: 3 } as const;

export interface SpanRecord {
  name: string;
  kind: (typeof SpanKind)[keyof typeof SpanKind];
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  sampled: boolean;
  /** Nanoseconds since the epoch. */
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttributeValue>;
  /** `error.type` when the operation failed (also among the attributes). */
  error?: string;
}

// Wall-clock nanoseconds from a monotonic clock: one Date.now() at load, hrtime after.
const BASE_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

export function nowNs(): bigint {
  return BASE_NS + process.hrtime.bigint();
}

/** A span in progress: `end()` fixes its time and outcome and hands it to `sink`, once. */
export class OpenSpan {
  readonly record: SpanRecord;
  readonly #sink: (span: SpanRecord) => void;
  #ended = false;

  constructor(sink: (span: SpanRecord) => void, name: string, kind: SpanRecord["kind"], trace: TraceContext, attributes: Record<string, AttributeValue>) {
    this.#sink = sink;
    const start = nowNs();
    this.record = { name, kind, traceId: trace.traceId, spanId: trace.spanId, sampled: trace.sampled, startNs: start, endNs: start, attributes };
    if (trace.parentSpanId !== undefined) this.record.parentSpanId = trace.parentSpanId;
  }

  set(key: string, value: AttributeValue | undefined): void {
    if (value !== undefined) this.record.attributes[key] = value;
  }

  end(errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.record.endNs = nowNs();
    if (errorType !== undefined) {
      this.record.error = errorType;
      this.record.attributes["error.type"] = errorType;
    }
    this.#sink(this.record);
  }
}
