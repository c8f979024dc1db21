// Where spans go: published on the `hubmcp:span` diagnostics channel (for an app running the
// OpenTelemetry SDK) and, when an OTLP endpoint is configured, exported in the background.
// A tracer with neither is inactive, and callers skip making spans at all.
import { channel } from "node:diagnostics_channel";
import { childContext, type ParentContext, type TraceContext } from "../util/trace-context.ts";
import { tracingConfig, type Sampler, type TracingConfig } from "./config.ts";
import { BatchExporter, type ExporterLimits } from "./exporter.ts";
import { OpenSpan, type AttributeValue, type SpanRecord } from "./span.ts";

/** The channel every finished hubmcp span is published on, as a SpanRecord. */
export const SPAN_CHANNEL = "hubmcp:span";
const spans = channel(SPAN_CHANNEL);

const KEEP_PARENT: Sampler = (parent) => parent?.sampled ?? true;

export class Tracer {
  readonly exporter: BatchExporter | null;
  readonly #sampler: Sampler;
  readonly #sink = (span: SpanRecord): void => this.#finished(span);

  constructor(config: TracingConfig | null, limits?: ExporterLimits) {
    const endpoint = config?.endpoint;
    this.exporter = config && endpoint ? new BatchExporter({ ...config, endpoint }, limits) : null;
    this.#sampler = config?.sampler ?? KEEP_PARENT;
  }

  /** Whether spans go anywhere: an exporter, or a subscriber to the channel. */
  get active(): boolean {
    return this.exporter !== null || spans.hasSubscribers;
  }

  /** A new span's context under `parent`, its sampled flag decided by the configured sampler. */
  context(parent: ParentContext | null): TraceContext {
    const made = childContext(parent);
    const sampled = this.#sampler(parent, made.traceId);
    if (sampled === made.sampled) return made;
    return { ...made, sampled, traceparent: `${made.traceparent.slice(0, -2)}${sampled ? "01" : "00"}` };
  }

  start(name: string, kind: SpanRecord["kind"], trace: TraceContext, attributes: Record<string, AttributeValue>): OpenSpan {
    return new OpenSpan(this.#sink, name, kind, trace, attributes);
  }

  #finished(span: SpanRecord): void {
    if (spans.hasSubscribers) spans.publish(span);
    if (span.sampled) this.exporter?.add(span);
  }
}

let processTracer: Tracer | undefined;

/**
 * This process's tracer for tool servers, from its OTEL_* environment on first use (start_mcp and
 * any program using the library set them the same way).
 */
export function processTracing(): Tracer {
  processTracer ??= new Tracer(tracingConfig(process.env, "hubmcp"));
  return processTracer;
}
