// The W3C trace-context parser: only version-00 values with non-zero ids continue a trace;
// anything else is no parent at all, and what is made from a parent keeps its trace id.
import assert from "node:assert/strict";
import { test } from "node:test";
import { childContext, parentFromHeaders, parentFromMeta, parseTraceparent, parseTracestate, traceEnv, traceFields } from "../../lib/util/trace-context.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";
const GOOD = `00-${TRACE}-${SPAN}-01`;

test("a version-00 traceparent parses; every malformed one is null", () => {
  assert.deepEqual(parseTraceparent(GOOD), { traceId: TRACE, spanId: SPAN, flags: 1 });
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.flags, 0);
  for (const bad of [
    undefined,
    42,
    "",
    `01-${TRACE}-${SPAN}-01`,
    `ff-${TRACE}-${SPAN}-01`,
    `00-${"0".repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${"0".repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-1`,
    `00-${TRACE}-${SPAN}-01-extra`,
    `00-${TRACE.slice(1)}x-${SPAN}-01`,
    ` ${GOOD.slice(1)}`,
  ]) {
    assert.equal(parseTraceparent(bad), null, String(bad));
  }
});

test("tracestate passes only when every member is well formed and within the limits", () => {
  assert.equal(parseTracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE"), "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  assert.equal(parseTracestate("tenant@vendor=x"), "tenant@vendor=x");
  for (const bad of [
    undefined,
    "",
    "Upper=1",
    "novalue",
    "a=b\n",
    "a=b,=c",
    "a=" + "x".repeat(600),
    Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(","),
  ]) {
    assert.equal(parseTracestate(bad), undefined, String(bad).slice(0, 40));
  }
});

test("a parent from _meta or from headers; a child keeps the trace, gets a new span, and carries state on", () => {
  assert.equal(parentFromMeta(null), null);
  assert.equal(parentFromMeta({ _meta: "x" }), null);
  assert.equal(parentFromMeta({ _meta: { traceparent: "nope", tracestate: "a=b" } }), null);
  const parent = parentFromMeta({ _meta: { traceparent: GOOD, tracestate: "a=b", baggage: "user=ada", progressToken: 1 } })!;
  assert.deepEqual(parent, { traceId: TRACE, spanId: SPAN, sampled: true, tracestate: "a=b", baggage: "user=ada" });
  assert.deepEqual(parentFromHeaders({ traceparent: GOOD, tracestate: ["a=b", "c=d"] }), {
    traceId: TRACE,
    spanId: SPAN,
    sampled: true,
    tracestate: "a=b,c=d",
  });
  assert.equal(parentFromHeaders({ traceparent: [GOOD, GOOD] }), null, "a repeated header is no parent");
  const bad = parentFromMeta({ _meta: { traceparent: GOOD, tracestate: "Bad State", baggage: "\u0001" } })!;
  assert.equal(bad.tracestate, undefined);
  assert.equal(bad.baggage, undefined);

  const child = childContext(parent);
  assert.equal(child.traceId, TRACE);
  assert.notEqual(child.spanId, SPAN);
  assert.match(child.spanId, /^[0-9a-f]{16}$/);
  assert.equal(child.traceparent, `00-${TRACE}-${child.spanId}-01`);
  assert.deepEqual(traceFields(child), { traceparent: child.traceparent, tracestate: "a=b", baggage: "user=ada" });
  assert.equal(childContext({ ...parent, sampled: false }).traceparent.slice(-2), "00");

  const root = childContext(null);
  assert.match(root.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.notEqual(root.traceId, childContext(null).traceId);
  assert.deepEqual(traceFields(root), { traceparent: root.traceparent });
  // Many ids in a row come from the refilled pool and stay distinct.
  const ids = new Set(Array.from({ length: 2000 }, () => childContext(null).spanId));
  assert.equal(ids.size, 2000);
});

test("traceEnv sets TRACEPARENT/TRACESTATE/BAGGAGE for a child program and leaves the given env alone", () => {
  const env = { PATH: "/bin", TRACESTATE: "stale=1", BAGGAGE: "stale=1" };
  assert.equal(traceEnv(env, undefined), env);
  const root = childContext(null);
  assert.deepEqual(traceEnv(env, root), { PATH: "/bin", TRACEPARENT: root.traceparent });
  const child = childContext(parentFromMeta({ _meta: { traceparent: GOOD, tracestate: "a=b", baggage: "k=v" } }));
  assert.deepEqual(traceEnv(env, child), { PATH: "/bin", TRACEPARENT: child.traceparent, TRACESTATE: "a=b", BAGGAGE: "k=v" });
  assert.equal(env.TRACESTATE, "stale=1");
});
