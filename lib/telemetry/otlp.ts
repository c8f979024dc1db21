// Spans as an OTLP/HTTP JSON ExportTraceServiceRequest (opentelemetry-proto's
// trace_service.proto): ids in hex, times as decimal strings, as the OTLP JSON encoding asks.
// Written span by span as each ends, to bytes: an object tree per span handed to JSON.stringify,
// and one string of the whole batch encoded at once, cost the traced gateway half as much again
// per span, and a queue of such trees is what young-generation collections copy (issue 39).
import type { AttributeValue, SpanRecord } from "./span.ts";

function anyValue(v: AttributeValue): string {
  if (typeof v === "string") return `{"stringValue":${JSON.stringify(v)}}`;
  if (typeof v === "boolean") return `{"boolValue":${v}}`;
  return Number.isInteger(v) ? `{"intValue":"${v}"}` : `{"doubleValue":${JSON.stringify(v)}}`;
}

function attributes(map: Record<string, AttributeValue>): string {
  let out = "";
  for (const key in map) out += `${out === "" ? "" : ","}{"key":${JSON.stringify(key)},"value":${anyValue(map[key]!)}}`;
  return `[${out}]`;
}

// Status codes of the proto: UNSET 0, ERROR 2 (a server span is left unset unless it failed).
const ERROR_STATUS = ',"status":{"code":2}';

/**
 * One span as OTLP JSON. Ids go in as they are: they are hex by construction (made here, or
 * taken from a traceparent ../util/trace-context.ts matched against its grammar).
 */
export function spanJson(s: SpanRecord): string {
  const parent = s.parentSpanId === undefined ? "" : `"parentSpanId":"${s.parentSpanId}",`;
  return (
    `{"traceId":"${s.traceId}","spanId":"${s.spanId}",${parent}"name":${JSON.stringify(s.name)},"kind":${s.kind},` +
    `"startTimeUnixNano":"${s.startNs}","endTimeUnixNano":"${s.endNs}","attributes":${attributes(s.attributes)},` +
    `"flags":${s.sampled ? 1 : 0}${s.error === undefined ? "" : ERROR_STATUS}}`
  );
}

const COMMA = Buffer.from(",");
const SPANS_END = Buffer.from("]}]}]}");

/** An export request of spans already written by spanJson (UTF-8). */
export function exportBody(resource: Record<string, AttributeValue>, spans: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`{"resourceSpans":[{"resource":{"attributes":${attributes(resource)}},"scopeSpans":[{"scope":{"name":"hubmcp"},"spans":[`),
  ];
  for (let i = 0; i < spans.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(spans[i]!);
  }
  parts.push(SPANS_END);
  return Buffer.concat(parts);
}
