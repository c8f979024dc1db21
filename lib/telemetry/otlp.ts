// Spans as an OTLP/HTTP JSON ExportTraceServiceRequest (opentelemetry-proto's
// trace_service.proto): ids in hex, times as decimal strings, as the OTLP JSON encoding asks.
import type { AttributeValue, SpanRecord } from "./span.ts";

type KeyValue = { key: string; value: Record<string, unknown> };

function anyValue(v: AttributeValue): Record<string, unknown> {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function attributes(map: Record<string, AttributeValue>): KeyValue[] {
  return Object.keys(map).map((key) => ({ key, value: anyValue(map[key]!) }));
}

// Status codes of the proto: UNSET 0, ERROR 2 (a server span is left unset unless it failed).
const STATUS_ERROR = 2;

function span(s: SpanRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    traceId: s.traceId,
    spanId: s.spanId,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: String(s.startNs),
    endTimeUnixNano: String(s.endNs),
    attributes: attributes(s.attributes),
    flags: s.sampled ? 1 : 0,
  };
  if (s.parentSpanId !== undefined) out.parentSpanId = s.parentSpanId;
  if (s.error !== undefined) out.status = { code: STATUS_ERROR };
  return out;
}

export function exportRequest(resource: Record<string, AttributeValue>, spans: readonly SpanRecord[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [{ scope: { name: "hubmcp" }, spans: spans.map(span) }],
      },
    ],
  });
}
