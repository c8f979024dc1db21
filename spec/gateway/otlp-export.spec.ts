// Spans exported over OTLP/HTTP JSON by the gateway and by the tool server it started, decoded
// with the official OTLP definitions: one trace from the client through the gateway and the tool
// server into a program the tool ran; a collector that is down costs dropped spans, not errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { closedPort, decodeSpans, startCollector, type DecodedSpan } from "../helpers/otlp.ts";
import { json, post, rpc, startHarness } from "./helpers.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const PARENT = `00-${TRACE}-${CLIENT_SPAN}-01`;
const TOOL_XML = fileURLToPath(new URL("../../fixtures/rappture/trace/tool.xml", import.meta.url));
const PASSED = ["TRACING_TOOL_XML", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME"];

function spanCount(bodies: string[], service: string): number {
  let n = 0;
  for (const b of bodies) if (b.includes(`"stringValue":"${service}"`)) n += (b.match(/"spanId"/g) ?? []).length;
  return n;
}

test("client → gateway → tool server → child program is one trace in the collector", { timeout: 180_000 }, async (t) => {
  const collector = await startCollector(t);
  const h = await startHarness(
    t,
    { tools: { tracing: { env: PASSED, revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: {
        ...process.env,
        NODE_V8_COVERAGE: "",
        TRACING_TOOL_XML: TOOL_XML,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: "tool-server",
      },
      telemetryEnv: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
        OTEL_SERVICE_NAME: "gateway",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=spec,bad",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%3D1",
        OTEL_TRACES_SAMPLER: "parentbased_always_on",
      },
    },
  );
  const url = `${h.base}/api/mcp/tracing/mcp`;
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: { tasks: {} }, clientInfo: { name: "spec", version: "1" } }),
  );
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  const call = { name: "trace_run", arguments: { text: "SECRET-ARGUMENT" }, task: {}, _meta: { traceparent: PARENT } };
  const taskId = (await json(await post(url, h.tokens.alice, rpc("tools/call", call, 2), session))).result.task.taskId;
  const done = await json(await post(url, h.tokens.alice, rpc("tasks/result", { taskId }, 3), session));
  const childSaw: string = done.result.structuredContent.traceparent.value;
  // A malformed traceparent: the gateway's span starts a trace of its own.
  const junk = await post(url, h.tokens.alice, rpc("tools/call", { name: "where_am_i", arguments: {}, _meta: { traceparent: "00-zz-zz-01" } }, 4), session);
  assert.equal(junk.status, 200);
  await junk.text();

  await collector.until((b) => spanCount(b, "gateway") >= 4 && spanCount(b, "tool-server") >= 4);
  const spans = await decodeSpans(collector.bodies);
  const gw = spans.find((s) => s.service === "gateway" && s.name === "tools/call trace_run")!;
  const tool = spans.find((s) => s.service === "tool-server" && s.name === "tools/call trace_run")!;
  assert.ok(gw && tool, JSON.stringify(spans.map((s) => `${s.service} ${s.name}`)));
  // The chain: client → gateway → tool server → the Rappture program.
  assert.equal(gw.traceId, TRACE);
  assert.equal(gw.parentSpanId, CLIENT_SPAN);
  assert.equal(tool.traceId, TRACE);
  assert.equal(tool.parentSpanId, gw.spanId);
  assert.equal(childSaw, `00-${TRACE}-${tool.spanId}-01`);
  // The MCP conventions: server spans, method, tool, request id, session; never the arguments.
  assert.equal(gw.kind, 2);
  assert.equal(tool.kind, 2);
  for (const s of [gw, tool]) {
    assert.equal(s.attributes["mcp.method.name"], "tools/call");
    assert.equal(s.attributes["gen_ai.tool.name"], "trace_run");
    assert.equal(s.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(s.attributes["jsonrpc.request.id"], "2");
    assert.equal(typeof s.attributes["mcp.session.id"], "string");
  }
  assert.equal(tool.attributes["mcp.protocol.version"], "2025-11-25");
  assert.ok(!collector.bodies.some((b) => b.includes("SECRET-ARGUMENT") || b.includes("00-zz-zz-01")));
  // The standard variables: resource attributes (a malformed entry skipped) and export headers.
  assert.ok(collector.bodies.some((b) => b.includes('"key":"deployment.environment","value":{"stringValue":"spec"}')));
  assert.ok(collector.headers.some((x) => x["x-collector-key"] === "k=1"));

  const fresh = spans.find((s) => s.service === "gateway" && s.name === "tools/call where_am_i")!;
  assert.notEqual(fresh.traceId, TRACE);
  assert.equal(fresh.parentSpanId, "");
  const freshTool = spans.find((s: DecodedSpan) => s.service === "tool-server" && s.name === "tools/call where_am_i")!;
  assert.equal(freshTool.parentSpanId, fresh.spanId);
  assert.ok(spans.some((s) => s.service === "gateway" && s.name === "initialize"));
});

test("a collector that is down costs dropped spans, counted in /metrics, and no client error", { timeout: 90_000 }, async (t) => {
  const port = await closedPort();
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: { ...process.env, NODE_V8_COVERAGE: "", TRACING_TOOL_XML: TOOL_XML },
      telemetryEnv: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces` },
    },
  );
  const url = `${h.base}/api/mcp/tracing/mcp`;
  for (let i = 0; i < 5; i++) {
    const res = await post(url, h.tokens.alice, rpc("tools/call", { name: "where_am_i", arguments: {} }, i));
    assert.equal(res.status, 200);
    assert.equal((await json(res)).result.isError, false);
  }
  // A refused request is a span too (its error.type the gateway's code).
  const refused = await post(`${url}?revision=nope`, h.tokens.alice, rpc("tools/call", { name: "where_am_i", arguments: {} }, 9));
  assert.equal(refused.status, 404);
  await refused.text();
  const dropped = async (): Promise<number> => {
    const text = await (await fetch(`${h.base}/metrics`)).text();
    return Number(/^hubmcp_spans_dropped_total (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  };
  // The export is in the background: wait for the count to reach the spans made (a bounded test).
  while ((await dropped()) < 6) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await dropped(), 6);
});

test("closing the gateway sends the spans still queued before it resolves", { timeout: 90_000 }, async (t) => {
  const collector = await startCollector(t);
  const h = await startHarness(
    t,
    { tools: { tracing: { env: ["TRACING_TOOL_XML"], revisions: { default: { app: "fixtures/tracing/app.ts" } } } } },
    {
      childEnv: { ...process.env, NODE_V8_COVERAGE: "", TRACING_TOOL_XML: TOOL_XML },
      telemetryEnv: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces` },
    },
  );
  const res = await post(`${h.base}/api/mcp/tracing/mcp`, h.tokens.alice, rpc("tools/call", { name: "where_am_i", arguments: {} }));
  assert.equal(res.status, 200);
  await res.text();
  // The batch waits a second for company; close must not leave it waiting.
  await h.gw.close();
  assert.ok(spanCount(collector.bodies, "hub_gateway") >= 1, "the call's span reached the collector before close resolved");
});
