// Spans as an OTLP/HTTP JSON ExportTraceServiceRequest (opentelemetry-proto's
// trace_service.proto): ids in hex, times as decimal strings, as the OTLP JSON encoding asks.
// A span is written straight into the exporter's buffer when it ends (./span-parts.ts says why
// bytes, not objects). Built as a string first, it was some forty pieces joined and then copied
// into the buffer: 3 to 5 µs a span, and garbage, on the traced gateway's every call (issue 39).
// Here every character goes into the buffer once, and only text that JSON must escape, or that
// is not ASCII, takes JSON.stringify's way.
import type { AttributeValue, SpanRecord } from "./span.ts";
import { asciiBytes, jsonStringBound, putAscii, putBytes, putJsonString } from "../util/json-bytes.ts";

const TRACE_ID = asciiBytes('{"traceId":');
const SPAN_ID = asciiBytes(',"spanId":');
const PARENT = asciiBytes(',"parentSpanId":');
const NAME = asciiBytes(',"name":');
const KIND = asciiBytes(',"kind":');
const START = asciiBytes(',"startTimeUnixNano":"');
const END = asciiBytes('","endTimeUnixNano":"');
const ATTRIBUTES = asciiBytes('","attributes":[');
const FLAGS_SAMPLED = asciiBytes('],"flags":1');
const FLAGS_NOT = asciiBytes('],"flags":0');
const CLOSE = asciiBytes("}");
// Status codes of the proto: UNSET 0, ERROR 2 (a server span is left unset unless it failed).
const STATUS_ERROR = asciiBytes(',"status":{"code":2}}');
const KEY = asciiBytes('{"key":');
const STRING_VALUE = asciiBytes(',"value":{"stringValue":');
const BOOL_TRUE = asciiBytes(',"value":{"boolValue":true}}');
const BOOL_FALSE = asciiBytes(',"value":{"boolValue":false}}');
const INT_VALUE = asciiBytes(',"value":{"intValue":"');
const INT_CLOSE = asciiBytes('"}}');
const DOUBLE_VALUE = asciiBytes(',"value":{"doubleValue":');
const VALUE_CLOSE = asciiBytes("}}");

/** Most bytes a span's text other than its strings and numbers takes, and one attribute's; a number takes at most 24 characters. */
const SPAN_FRAME_BYTES = 256;
const ATTRIBUTE_FRAME_BYTES = 64;
const NUMBER_BYTES = 24;

function putValue(buf: Buffer, at: number, v: AttributeValue): number {
  if (typeof v === "string") return putBytes(buf, putJsonString(buf, putBytes(buf, at, STRING_VALUE), v), VALUE_CLOSE);
  if (typeof v === "boolean") return putBytes(buf, at, v ? BOOL_TRUE : BOOL_FALSE);
  if (Number.isInteger(v)) return putBytes(buf, putAscii(buf, putBytes(buf, at, INT_VALUE), String(v)), INT_CLOSE);
  // JSON has no NaN or Infinity: JSON.stringify writes null for them, as it did when spans were strings.
  return putBytes(buf, putAscii(buf, putBytes(buf, at, DOUBLE_VALUE), JSON.stringify(v)), VALUE_CLOSE);
}

function putAttributes(buf: Buffer, at: number, map: Readonly<Record<string, AttributeValue>>): number {
  let first = true;
  for (const key in map) {
    if (!first) buf[at++] = 0x2c;
    first = false;
    at = putValue(buf, putJsonString(buf, putBytes(buf, at, KEY), key), map[key]!);
  }
  return at;
}

function attributesBound(map: Readonly<Record<string, AttributeValue>>): number {
  let n = 0;
  for (const key in map) {
    const v = map[key]!;
    n += ATTRIBUTE_FRAME_BYTES + jsonStringBound(key) + (typeof v === "string" ? jsonStringBound(v) : NUMBER_BYTES);
  }
  return n;
}

/** At least as many bytes as writeSpan writes for `s`. */
export function spanBound(s: SpanRecord): number {
  const ids = jsonStringBound(s.traceId) + jsonStringBound(s.spanId) + (s.parentSpanId === undefined ? 0 : jsonStringBound(s.parentSpanId));
  return SPAN_FRAME_BYTES + 2 * NUMBER_BYTES + ids + jsonStringBound(s.name) + attributesBound(s.attributes);
}

/** Writes one span's JSON into `buf` from `at`, which has room for spanBound(s) bytes; returns where it ends. */
export function writeSpan(s: SpanRecord, buf: Buffer, at: number): number {
  at = putJsonString(buf, putBytes(buf, at, TRACE_ID), s.traceId);
  at = putJsonString(buf, putBytes(buf, at, SPAN_ID), s.spanId);
  if (s.parentSpanId !== undefined) at = putJsonString(buf, putBytes(buf, at, PARENT), s.parentSpanId);
  at = putJsonString(buf, putBytes(buf, at, NAME), s.name);
  at = putAscii(buf, putBytes(buf, at, KIND), String(s.kind));
  at = putAscii(buf, putBytes(buf, at, START), String(s.startNs));
  at = putAscii(buf, putBytes(buf, at, END), String(s.endNs));
  at = putAttributes(buf, putBytes(buf, at, ATTRIBUTES), s.attributes);
  at = putBytes(buf, at, s.sampled ? FLAGS_SAMPLED : FLAGS_NOT);
  return putBytes(buf, at, s.error === undefined ? CLOSE : STATUS_ERROR);
}

/** One span's JSON text. */
export function spanJson(s: SpanRecord): string {
  const buf = Buffer.allocUnsafe(spanBound(s));
  return buf.toString("utf8", 0, writeSpan(s, buf, 0));
}

/** What comes before a batch's spans (each written by writeSpan, comma-separated), and after them. */
export function exportFrame(resource: Readonly<Record<string, AttributeValue>>): { head: Buffer; tail: Buffer } {
  const buf = Buffer.allocUnsafe(attributesBound(resource));
  const attributes = buf.subarray(0, putAttributes(buf, 0, resource));
  return {
    head: Buffer.concat([
      Buffer.from('{"resourceSpans":[{"resource":{"attributes":['),
      attributes,
      Buffer.from(']},"scopeSpans":[{"scope":{"name":"hubmcp"},"spans":['),
    ]),
    tail: Buffer.from("]}]}]}"),
  };
}

/** A whole export body. */
export function exportRequest(resource: Readonly<Record<string, AttributeValue>>, spans: readonly SpanRecord[]): string {
  const { head, tail } = exportFrame(resource);
  return `${head.toString("utf8")}${spans.map(spanJson).join(",")}${tail.toString("utf8")}`;
}
