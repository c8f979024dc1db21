// The only JSON-RPC the gateway changes on a tool's own route: ping results become `{}`, and a
// resource URI a client sends with the gateway's address in front (`{publicUrl}/api/mcp/<tool>/ui://…`,
// as earlier gateways listed them) goes on without it. URIs go out as the tool server wrote
// them: one tool per route needs no renaming, and the rule for relays that merge tools is
// ../../federation/naming.ts (docs/decisions.md, "Resource URIs"). Trace context a request's `_meta`
// carries is replaced by the gateway's own span (./trace.ts). Everything else passes as it is.
import { carriesMessage, SseReader } from "../../http/sse-reader.ts";
import { formatEvent } from "../../http/sse.ts";
import { parentFromMeta, type ParentContext } from "../../util/trace-context.ts";
import { mcpSpanAttributes } from "../../mcp/span.ts";
import type { AttributeValue } from "../../telemetry/span.ts";
import { isRecord } from "../../util/guards.ts";
import { charsetOf } from "../../http/content-type.ts";
import { spliceAt } from "./trace-splice.ts";
import { scanRequest, type RequestHead } from "./request-head.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Methods whose results are rewritten: their answers are read whole, as JSON or as an event stream. */
const REWRITTEN = ["ping"];
/** Methods whose `params.uri` may carry the gateway's prefix. */
const URI_PARAMS = ["resources/read", "resources/subscribe", "resources/unsubscribe"];
// Arrays, not sets: a method read from a body is a new string, which a set hashes on every lookup.

const isObject = isRecord as (v: unknown) => v is JsonObject;

export interface ParsedMessage {
  /** A single request (has an id and a method), else undefined. */
  method?: string;
  /** True when the answer must be rewritten. */
  rewrite: boolean;
  /** True for a JSON-RPC `initialize` request. */
  initialize: boolean;
  /** The body to send on: the original bytes unless the request was rewritten. */
  body: Buffer;
  /** The resource URI as the client sent it and as it goes on, when the prefix was removed. */
  uri?: { sent: string; forwarded: string };
  /** A request whose `_meta` carries trace context: what it names, and the body with the gateway's own in its place. */
  traced?: { parent: ParentContext | null; with(fields: Record<string, string>): Buffer };
  /** The span's name and attributes under the MCP conventions, when the body was read for tracing. */
  span?: { name: string; attributes: Record<string, AttributeValue> };
}

/**
 * What every message the gateway acts on contains, as JSON writes it in UTF-8: the method
 * name in quotes (the methods in REWRITTEN and URI_PARAMS, and initialize), or the `_meta` key
 * `traceparent` in quotes. Only a backslash
 * could spell one otherwise (`"\u0069nitialize"`). A NUL byte is never in UTF-8 JSON, but
 * is in every ASCII character of UTF-16 or UTF-32, which some servers detect and read.
 */
const ACTED_ON = /\\|\0|"(?:initialize"|ping"|resources\/|traceparent")/;
/** A charset named in Content-Type: a server may decode the body by it. */
const UTF8 = /^utf-?8$/i;

/**
 * Whether a body could be a message the gateway acts on. One that cannot may pass unread, as
 * it came (the tool server parses it, and refuses it if it is not JSON): a large tools/call
 * is then not parsed twice. Only a body the tool server reads as UTF-8 can be ruled out: the
 * bytes are read as latin1, one character per byte, and what is looked for is ASCII, which
 * UTF-8 never uses inside another character. One regular expression costs a fifth of a
 * search per needle on every request.
 */
export function mayActOn(raw: Buffer, contentType: string | undefined): boolean {
  const charset = charsetOf(contentType);
  if (charset !== undefined && !UTF8.test(charset)) return true;
  return ACTED_ON.test(raw.toString("latin1"));
}

/** A body the gateway does not act on, as it goes on. */
export function passedOn(raw: Buffer): ParsedMessage {
  return { rewrite: false, initialize: false, body: raw };
}

/**
 * Reads a JSON-RPC body; null when it is not JSON. `tracing`: name the request's span, and
 * make room for the gateway's trace context in the `_meta` of a request that carries none.
 * `naming`: name it only (for the audit trail), the body left as it is.
 */
export function inspectRequest(raw: Buffer, resourcePrefix: string, tracing = false, naming = tracing): ParsedMessage | null {
  const head = scanRequest(raw);
  if (head && !URI_PARAMS.includes(head.method)) return fromHead(raw, head, tracing, naming);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.method !== "string") return { rewrite: false, initialize: false, body: raw };
  const method = value.method;
  const isRequest = value.id !== undefined && value.id !== null;
  let body = raw;
  let uri: ParsedMessage["uri"];
  const params = value.params;
  if (URI_PARAMS.includes(method) && isObject(params) && typeof params.uri === "string" && params.uri.startsWith(resourcePrefix)) {
    uri = { sent: params.uri, forwarded: params.uri.slice(resourcePrefix.length) };
    params.uri = uri.forwarded;
    body = Buffer.from(JSON.stringify(value));
  }
  const parsed: ParsedMessage = {
    method: isRequest ? method : undefined,
    rewrite: isRequest && REWRITTEN.includes(method),
    initialize: isRequest && method === "initialize",
    body,
  };
  if (uri) parsed.uri = uri;
  if (naming) parsed.span = mcpSpanAttributes(method, params, isRequest && (typeof value.id === "string" || typeof value.id === "number") ? value.id : null);
  const meta = isObject(params) ? params._meta : undefined;
  if (isRequest && isObject(params) && (tracing || (isObject(meta) && "traceparent" in meta))) {
    // A body the scan declined (./request-head.ts): written out again, the client's trace keys replaced.
    parsed.traced = { parent: parentFromMeta(params), with: (fields) => rewritten(value, params, fields) };
  }
  return parsed;
}

/** The same as inspectRequest's answer, from a head the scan read (no resource URI to change: those methods are parsed). */
function fromHead(raw: Buffer, head: RequestHead, tracing: boolean, naming: boolean): ParsedMessage {
  const { method, id } = head;
  const isRequest = id !== undefined && id !== null;
  const parsed: ParsedMessage = {
    method: isRequest ? method : undefined,
    rewrite: isRequest && REWRITTEN.includes(method),
    initialize: isRequest && method === "initialize",
    body: raw,
  };
  if (naming) parsed.span = mcpSpanAttributes(method, head.name === undefined ? undefined : { name: head.name }, isRequest ? id : null);
  // A _meta with trace keys is never read by the scan: with none, only tracing puts the gateway's in.
  if (isRequest && head.paramsAt >= 0 && tracing) {
    const place = head.metaAt >= 0 ? { at: head.metaAt, newMeta: false, empty: head.metaEmpty } : { at: head.paramsAt, newMeta: true, empty: head.paramsEmpty };
    parsed.traced = { parent: null, with: (fields) => spliceAt(raw, place, fields) };
  }
  return parsed;
}

/** `value` written out with `fields` in place of the trace keys its `params._meta` has (or a new `_meta`). */
function rewritten(value: JsonObject, params: JsonObject, fields: Record<string, string>): Buffer {
  // The client's keys go, malformed or not: the tool server continues the gateway's span.
  const meta = isObject(params._meta) ? params._meta : {};
  delete meta.traceparent;
  delete meta.tracestate;
  delete meta.baggage;
  params._meta = Object.assign(meta, fields);
  return Buffer.from(JSON.stringify(value));
}

/** The rewritten answer text, or null to pass the original through. */
export function rewriteResult(method: string, raw: Buffer | string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
  } catch {
    return null;
  }
  if (method !== "ping" || !isObject(value) || !("result" in value)) return null;
  const result = value.result;
  if (isObject(result) && Object.keys(result).length === 0) return null;
  return JSON.stringify({ ...value, result: {} });
}

/**
 * A whole event-stream answer with its `message` events rewritten as `rewriteResult` does
 * (a streamable-HTTP server may answer any request with a stream); the events are framed
 * again, comments dropped.
 */
export function rewriteEvents(method: string, raw: Buffer): string {
  let out = "";
  for (const e of new SseReader({ maxEventChars: raw.length + 1 }).push(raw)) {
    const data = carriesMessage(e) ? (rewriteResult(method, e.data) ?? e.data) : e.data;
    out += formatEvent({ event: e.event, ...(e.id ? { id: e.id } : {}), data });
  }
  return out;
}
