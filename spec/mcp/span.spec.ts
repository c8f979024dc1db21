// The tool server's spans, as an app running the OpenTelemetry SDK sees them on the
// `hubmcp:span` diagnostics channel: one per request, named and labelled by the MCP conventions.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { test } from "node:test";
import { server } from "../../fixtures/tracing/app.ts";
import type { SpanRecord } from "../../lib/telemetry/span.ts";
import { SPAN_CHANNEL } from "../../lib/telemetry/tracer.ts";

const PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

test("one server span per request on the diagnostics channel; errors typed, arguments never recorded", async (t) => {
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => void seen.push(span as SpanRecord);
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${running.url}mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { res, body: (await res.json()) as any };
  };
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } },
  });
  const session = { "mcp-session-id": init.res.headers.get("mcp-session-id")! };
  const call = (id: number, name: string, args: unknown) =>
    post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: { traceparent: PARENT } } }, session);
  const ok = await call(1, "where_am_i", {});
  const own = JSON.parse(ok.body.result.content[0].text);
  await call(2, "fail_always", { secret: "SECRET-ARGUMENT" });
  await call(3, "no_such_tool", {});

  const [initSpan, good, bad, unknown] = seen;
  assert.equal(seen.length, 4);
  assert.equal(initSpan!.name, "initialize");
  assert.equal(good!.name, "tools/call where_am_i");
  assert.equal(good!.kind, 2);
  assert.equal(good!.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.equal(good!.parentSpanId, "00f067aa0ba902b7");
  assert.equal(good!.spanId, own.spanId, "the span is the one ctx.trace names");
  assert.ok(good!.endNs >= good!.startNs);
  assert.deepEqual(good!.attributes, {
    "mcp.method.name": "tools/call",
    "jsonrpc.request.id": "1",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "where_am_i",
    "mcp.session.id": session["mcp-session-id"],
    "mcp.protocol.version": "2025-06-18",
  });
  assert.equal(good!.error, undefined);
  assert.equal(bad!.error, "tool_error", "a tool that throws: an isError result");
  assert.equal(unknown!.error, "-32602");
  assert.equal(unknown!.attributes["error.type"], "-32602");
  assert.ok(!JSON.stringify(seen, (_k, v) => (typeof v === "bigint" ? String(v) : v)).includes("SECRET-ARGUMENT"));
});

test("a REST call is a tools/call span too, continuing the W3C headers' trace", async (t) => {
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => void seen.push(span as SpanRecord);
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const res = await fetch(`${running.url}tools/fail_always`, {
    method: "POST",
    headers: { "content-type": "application/json", traceparent: PARENT },
    body: JSON.stringify({ secret: "SECRET-ARGUMENT" }),
  });
  assert.equal(res.status, 500);
  await res.text();
  const span = seen.find((s) => s.name === "tools/call fail_always");
  assert.ok(span, seen.map((s) => s.name).join(", "));
  assert.equal(span.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.equal(span.parentSpanId, "00f067aa0ba902b7");
  assert.equal(span.error, "500");
  assert.ok(!JSON.stringify(span.attributes).includes("SECRET-ARGUMENT"));
});
