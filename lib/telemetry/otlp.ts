// Spans as an OTLP/HTTP JSON ExportTraceServiceRequest (opentelemetry-proto's
// trace_service.proto): ids in hex, times as decimal strings, as the OTLP JSON encoding asks.
// Written as text a span at a time, so the exporter can keep a finished span as bytes rather
// than as objects until its batch goes (./span-parts.ts says why).
import type { AttributeValue, SpanRecord } from "./span.ts";

function anyValue(v: AttributeValue): string {
  if (typeof v === "string") return `{"stringValue":${JSON.stringify(v)}}`;
  if (typeof v === "boolean") return `{"boolValue":${v}}`;
  return Number.isInteger(v) ? `{"intValue":"${v}"}` : `{"doubleValue":${JSON.stringify(v)}}`;
}

// Attribute keys are the few the conventions name, written on every span: each is escaped once.
const KEYS = new Map<string, string>();
const MAX_KEYS = 256;

function keyJson(key: string): string {
  let json = KEYS.get(key);
  if (json === undefined) {
    json = `{"key":${JSON.stringify(key)},"value":`;
    if (KEYS.size < MAX_KEYS) KEYS.set(key, json);
  }
  return json;
}

function attributes(map: Readonly<Record<string, AttributeValue>>): string {
  let out = "";
  for (const key in map) out += `${out === "" ? "" : ","}${keyJson(key)}${anyValue(map[key]!)}}`;
  return `[${out}]`;
}

// Status codes of the proto: UNSET 0, ERROR 2 (a server span is left unset unless it failed).
const STATUS_ERROR = 2;

/** One span's JSON. Ids are hex and times digits, written as they are; names and attributes go through JSON.stringify. */
export function spanJson(s: SpanRecord): string {
  return (
    `{"traceId":"${s.traceId}","spanId":"${s.spanId}",` +
    (s.parentSpanId === undefined ? "" : `"parentSpanId":"${s.parentSpanId}",`) +
    `"name":${JSON.stringify(s.name)},"kind":${s.kind},"startTimeUnixNano":"${s.startNs}","endTimeUnixNano":"${s.endNs}",` +
    `"attributes":${attributes(s.attributes)},"flags":${s.sampled ? 1 : 0}` +
    (s.error === undefined ? "}" : `,"status":{"code":${STATUS_ERROR}}}`)
  );
}

/** What comes before a batch's spans (each written by spanJson, comma-separated), and after them. */
export function exportFrame(resource: Readonly<Record<string, AttributeValue>>): { head: string; tail: string } {
  return {
    head: `{"resourceSpans":[{"resource":{"attributes":${attributes(resource)}},"scopeSpans":[{"scope":{"name":"hubmcp"},"spans":[`,
    tail: "]}]}]}",
  };
}

/** A whole export body. */
export function exportRequest(resource: Readonly<Record<string, AttributeValue>>, spans: readonly SpanRecord[]): string {
  const { head, tail } = exportFrame(resource);
  return `${head}${spans.map(spanJson).join(",")}${tail}`;
}
