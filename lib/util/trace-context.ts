// W3C Trace Context (https://www.w3.org/TR/trace-context/) as MCP carries it (SEP-414: the
// same three keys in `params._meta`), read and made in one place. Pure: no I/O, no clock.
// A value that does not parse is treated as absent, never echoed: the caller starts a new trace.
import { randomFillSync } from "node:crypto";
import { isRecord } from "./guards.ts";

/** The context one span runs in, as handed to a tool (`ctx.trace`) and on to child programs. */
export interface TraceContext {
  /** `00-{traceId}-{spanId}-{flags}`: this span's own header value. */
  readonly traceparent: string;
  /** Vendor state passed on unchanged. */
  readonly tracestate?: string;
  /** W3C baggage passed on unchanged. */
  readonly baggage?: string;
  readonly traceId: string;
  readonly spanId: string;
  /** The span this one continues; absent at the root of a trace. */
  readonly parentSpanId?: string;
  /** The sampled flag (bit 0 of the flags). */
  readonly sampled: boolean;
}

/** What a request says about the span that sent it. */
export interface ParentContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
  tracestate?: string;
  baggage?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
// The spec's limits: 32 list members; key and value grammars. Longer or odder state is dropped whole.
const TRACESTATE_MEMBER =
  /^(?:[a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const MAX_TRACESTATE = 512;
// Baggage: printable ASCII without spaces around, at most 8192 bytes (W3C Baggage limits).
const BAGGAGE = /^[\x20-\x7e]{1,8192}$/;

/** The parts of a version-00 traceparent; null when it is not one (or names the invalid all-zero ids). */
export function parseTraceparent(value: unknown): { traceId: string; spanId: string; flags: number } | null {
  if (typeof value !== "string" || value.length !== 55) return null;
  const m = TRACEPARENT.exec(value);
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return null;
  return { traceId: m[1]!, spanId: m[2]!, flags: Number.parseInt(m[3]!, 16) };
}

/** A tracestate list as given when every member is well formed, else undefined. */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TRACESTATE) return undefined;
  // Only spaces and tabs are optional whitespace around members; any other control character spoils the list.
  const members = value.split(",").map((m) => m.replace(/^[ \t]+|[ \t]+$/g, ""));
  if (members.length > 32 || !members.every((m) => TRACESTATE_MEMBER.test(m))) return undefined;
  return members.join(",");
}

function parseBaggage(value: unknown): string | undefined {
  return typeof value === "string" && BAGGAGE.test(value) ? value.trim() : undefined;
}

function parentOf(traceparent: unknown, tracestate: unknown, baggage: unknown): ParentContext | null {
  const p = parseTraceparent(traceparent);
  if (!p) return null;
  const parent: ParentContext = { traceId: p.traceId, spanId: p.spanId, sampled: (p.flags & 1) === 1 };
  const state = parseTracestate(tracestate);
  if (state !== undefined) parent.tracestate = state;
  const bag = parseBaggage(baggage);
  if (bag !== undefined) parent.baggage = bag;
  return parent;
}

/** The parent a request's `params._meta` names, or null. */
export function parentFromMeta(params: unknown): ParentContext | null {
  if (!isRecord(params)) return null;
  const meta = params._meta;
  if (!isRecord(meta)) return null;
  return parentOf(meta.traceparent, meta.tracestate, meta.baggage);
}

type HeaderValue = string | string[] | undefined;

/** The parent the W3C headers name, or null (a repeated traceparent is no parent at all). */
export function parentFromHeaders(headers: Readonly<Record<string, HeaderValue>>): ParentContext | null {
  const state = headers.tracestate;
  return parentOf(headers.traceparent, Array.isArray(state) ? state.join(",") : state, headers.baggage);
}

// Ids come from a pooled random buffer: one randomFill per 256 spans instead of one per span.
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  // An all-zero id is invalid: one fixed bit rules it out at the cost of one bit of randomness.
  POOL[poolAt] = POOL[poolAt]! | 1;
  const hex = POOL.toString("hex", poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

/** A new span id (16 hex digits, never all zero). */
export function newSpanId(): string {
  return randomHex(8);
}

/** A span continuing `parent` (same trace, a new span id), or the root of a new trace. */
export function childContext(parent: ParentContext | null, sampled = true): TraceContext {
  const traceId = parent ? parent.traceId : randomHex(16);
  const spanId = newSpanId();
  const isSampled = parent ? parent.sampled : sampled;
  const ctx: { -readonly [K in keyof TraceContext]: TraceContext[K] } = {
    traceparent: `00-${traceId}-${spanId}-${isSampled ? "01" : "00"}`,
    traceId,
    spanId,
    sampled: isSampled,
  };
  if (parent) ctx.parentSpanId = parent.spanId;
  if (parent?.tracestate !== undefined) ctx.tracestate = parent.tracestate;
  if (parent?.baggage !== undefined) ctx.baggage = parent.baggage;
  return ctx;
}

/** The `_meta` keys (and header names) that carry `ctx` on to the next hop. */
export function traceFields(ctx: TraceContext): Record<string, string> {
  const fields: Record<string, string> = { traceparent: ctx.traceparent };
  if (ctx.tracestate !== undefined) fields.tracestate = ctx.tracestate;
  if (ctx.baggage !== undefined) fields.baggage = ctx.baggage;
  return fields;
}

/**
 * `env` with TRACEPARENT and TRACESTATE for a child program (the OpenTelemetry convention for
 * environment carriers); `env` itself when there is no context. Never changes `env`.
 */
export function traceEnv(env: NodeJS.ProcessEnv, ctx: TraceContext | undefined): NodeJS.ProcessEnv {
  if (!ctx) return env;
  const out: NodeJS.ProcessEnv = { ...env, TRACEPARENT: ctx.traceparent };
  if (ctx.tracestate !== undefined) out.TRACESTATE = ctx.tracestate;
  else delete out.TRACESTATE;
  if (ctx.baggage !== undefined) out.BAGGAGE = ctx.baggage;
  else delete out.BAGGAGE;
  return out;
}
