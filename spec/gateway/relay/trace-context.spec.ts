// Trace context through the gateway into a real hubmcp tool server: the tool's span is a child
// of the gateway's, which is a child of the client's (from `_meta` or the W3C header), and a
// malformed value is dropped, never passed on or echoed.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { json, post, rpc, startHarness } from "../helpers.ts";
import type { SpanRecord } from "../../../lib/telemetry/span.ts";
import { SPAN_CHANNEL } from "../../../lib/telemetry/tracer.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const PARENT = `00-${TRACE}-${SPAN}-01`;
const HEX16 = /^[0-9a-f]{16}$/;

test("the gateway continues the client's trace and passes its own span on to the tool server", { timeout: 90_000 }, async (t) => {
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: {
        ...process.env,
        NODE_V8_COVERAGE: "",
        TRACING_TOOL_XML: fileURLToPath(new URL("../../../fixtures/rappture/trace/tool.xml", import.meta.url)),
      },
    },
  );
  const url = `${h.base}/api/mcp/tracing/mcp`;
  const call = async (meta: Record<string, unknown> | undefined, headers: Record<string, string> = {}) => {
    const params = { name: "where_am_i", arguments: {}, ...(meta ? { _meta: meta } : {}) };
    const res = await post(url, h.tokens.alice, rpc("tools/call", params), headers);
    const text = await res.text();
    assert.equal(res.status, 200, `${text}\n${h.logs.join("\n")}`);
    return { text, trace: JSON.parse(JSON.parse(text).result.content[0].text) };
  };

  // In _meta (SEP-414): same trace, and the tool's parent is the gateway's span, not the client's.
  const viaMeta = (await call({ traceparent: PARENT, tracestate: "vendor=x", baggage: "lab=ada" })).trace;
  assert.equal(viaMeta.traceId, TRACE);
  assert.match(viaMeta.parentSpanId, HEX16);
  assert.notEqual(viaMeta.parentSpanId, SPAN, "the gateway's own span stands between client and tool");
  assert.notEqual(viaMeta.spanId, viaMeta.parentSpanId);
  assert.equal(viaMeta.traceparent, `00-${TRACE}-${viaMeta.spanId}-01`);
  assert.equal(viaMeta.tracestate, "vendor=x");
  assert.equal(viaMeta.baggage, "lab=ada");

  // In the W3C header only.
  const viaHeader = (await call(undefined, { traceparent: PARENT, tracestate: "vendor=y" })).trace;
  assert.equal(viaHeader.traceId, TRACE);
  assert.notEqual(viaHeader.parentSpanId, SPAN);
  assert.equal(viaHeader.tracestate, "vendor=y");

  // _meta wins over the header; an unsampled parent stays unsampled.
  const other = `00-${"1".repeat(32)}-${"2".repeat(16)}-00`;
  const both = (await call({ traceparent: other }, { traceparent: PARENT })).trace;
  assert.equal(both.traceId, "1".repeat(32));
  assert.equal(both.sampled, false);

  // Malformed values start a new trace under the gateway's span and are never passed on or echoed.
  const junk = "00-NOT-A-TRACE-zz";
  const bad = await call({ traceparent: junk, tracestate: "Bad State" }, { traceparent: "garbage-header", tracestate: "x" });
  assert.notEqual(bad.trace.traceId, TRACE);
  assert.match(bad.trace.parentSpanId, HEX16);
  assert.equal(bad.trace.tracestate, undefined);
  assert.ok(!bad.text.includes(junk) && !bad.text.includes("garbage-header") && !bad.text.includes("Bad State"));
  assert.ok(!h.logs.join("\n").includes(junk));

  // None sent: still one trace, rooted at the gateway.
  const none = (await call(undefined)).trace;
  assert.match(none.traceId, /^[0-9a-f]{32}$/);
  assert.match(none.parentSpanId, HEX16);

  // A Rappture run the tool starts (as a task, in a session) sees its call's span as TRACEPARENT.
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: { tasks: {} }, clientInfo: { name: "spec", version: "1" } }),
  );
  assert.equal(init.status, 200);
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  const started = await post(
    url,
    h.tokens.alice,
    rpc("tools/call", { name: "trace_run", arguments: {}, task: {}, _meta: { traceparent: PARENT } }, 2),
    session,
  );
  const taskId = (await json(started)).result.task.taskId as string;
  const done = await post(url, h.tokens.alice, rpc("tasks/result", { taskId }, 3), session);
  const seen = (await json(done)).result.structuredContent.traceparent.value as string;
  assert.match(seen, new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
  assert.notEqual(seen, PARENT);
});

test("/mcp continues the client's trace too: its span stands between the client's and the tool server's", { timeout: 90_000 }, async (t) => {
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => {
    seen.push(span as SpanRecord);
  };
  // A subscriber makes the gateway's tracer active (as an app running the OpenTelemetry SDK would).
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: {
        ...process.env,
        NODE_V8_COVERAGE: "",
        TRACING_TOOL_XML: fileURLToPath(new URL("../../../fixtures/rappture/trace/tool.xml", import.meta.url)),
      },
    },
  );
  const init = await post(
    `${h.base}/mcp`,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  assert.equal(init.status, 200);
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  const call = async (meta: Record<string, unknown> | undefined, headers: Record<string, string> = {}) => {
    const params = { name: "tracing_where_am_i", arguments: {}, ...(meta ? { _meta: meta } : {}) };
    const res = await post(`${h.base}/mcp`, h.tokens.alice, rpc("tools/call", params, 2), { ...session, ...headers });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return { text, trace: JSON.parse(JSON.parse(text).result.content[0].text) };
  };

  const viaMeta = (await call({ traceparent: PARENT, tracestate: "vendor=x" })).trace;
  assert.equal(viaMeta.traceId, TRACE);
  assert.equal(viaMeta.tracestate, "vendor=x");
  const gateway = seen.find((s) => s.spanId === viaMeta.parentSpanId);
  assert.ok(gateway, "the tool's parent is a span the gateway made");
  assert.equal(gateway.parentSpanId, SPAN, "and the gateway's span is the client's child");
  // Named by the tool server's own tool name, as on the per-tool route, whatever the connector calls it.
  assert.equal(gateway.name, "tools/call where_am_i");
  assert.equal(gateway.attributes["mcp.method.name"], "tools/call");

  const viaHeader = (await call(undefined, { traceparent: PARENT })).trace;
  assert.equal(viaHeader.traceId, TRACE);
  assert.notEqual(viaHeader.parentSpanId, SPAN);

  const junk = "00-NOT-A-TRACE-zz";
  const bad = await call({ traceparent: junk }, { traceparent: "garbage-header" });
  assert.notEqual(bad.trace.traceId, TRACE);
  assert.ok(!bad.text.includes(junk) && !bad.text.includes("garbage-header"));
});

test("a REST call through the gateway is a tools/call span under the client's, carried on in the headers", { timeout: 90_000 }, async (t) => {
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => {
    seen.push(span as SpanRecord);
  };
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: {
        ...process.env,
        NODE_V8_COVERAGE: "",
        TRACING_TOOL_XML: fileURLToPath(new URL("../../../fixtures/rappture/trace/tool.xml", import.meta.url)),
      },
    },
  );
  const res = await post(`${h.base}/api/mcp/tracing/tools/fail_always`, h.tokens.alice, "{}", { traceparent: PARENT });
  assert.equal(res.status, 500);
  await res.text();
  const span = seen.find((s) => s.name === "tools/call fail_always");
  assert.ok(span, seen.map((s) => s.name).join(", "));
  assert.equal(span.traceId, TRACE);
  assert.equal(span.parentSpanId, SPAN);
  assert.equal(span.error, "500");
});
