// ctx.trace on a tool server over real HTTP: a child of `_meta.traceparent`, else of the W3C
// header, on session, session-less and stateless (2026-07-28) requests and in a task's run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { server } from "../../fixtures/tracing/app.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const PARENT = `00-${TRACE}-${SPAN}-01`;
const V = "2026-07-28";

async function started(t: { after(fn: () => unknown): void }) {
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const url = `${running.url}mcp`;
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
    return { res, body: (await res.json()) as any };
  };
  return { post };
}

const whereAmI = (meta?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "where_am_i", arguments: {}, ...extra, ...(meta ? { _meta: meta } : {}) },
});
const traceOf = (body: any) => JSON.parse(body.result.content[0].text);

test("a tool's span continues _meta, else the traceparent header, else starts a trace", async (t) => {
  const { post } = await started(t);
  const fromHeader = traceOf((await post(whereAmI(), { traceparent: PARENT, tracestate: "v=1" })).body);
  assert.equal(fromHeader.traceId, TRACE);
  assert.equal(fromHeader.parentSpanId, SPAN);
  assert.equal(fromHeader.tracestate, "v=1");
  assert.notEqual(fromHeader.spanId, SPAN);

  const other = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
  const fromMeta = traceOf((await post(whereAmI({ traceparent: other }), { traceparent: PARENT })).body);
  assert.equal(fromMeta.traceId, "a".repeat(32));
  assert.equal(fromMeta.parentSpanId, "b".repeat(16));

  const { body } = await post(whereAmI({ traceparent: "00-bad-bad-01", tracestate: "BAD" }), { traceparent: "nonsense" });
  const fresh = traceOf(body);
  assert.equal(fresh.parentSpanId, undefined);
  assert.match(fresh.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.ok(!JSON.stringify(body).includes("00-bad-bad-01") && !JSON.stringify(body).includes("nonsense"));
});

test("a stateless (2026-07-28) request continues its header's trace too", async (t) => {
  const { post } = await started(t);
  const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
  const headers = { "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "where_am_i", traceparent: PARENT };
  const trace = traceOf((await post(whereAmI(meta), headers)).body);
  assert.equal(trace.traceId, TRACE);
  assert.equal(trace.parentSpanId, SPAN);
  const own = traceOf((await post(whereAmI({ ...meta, traceparent: `00-${"c".repeat(32)}-${"d".repeat(16)}-00` }), headers)).body);
  assert.equal(own.traceId, "c".repeat(32));
  assert.equal(own.sampled, false);
});

test("a Rappture run started as a task gets the call's span as TRACEPARENT", async (t) => {
  const { post } = await started(t);
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: { tasks: {} }, clientInfo: { name: "spec", version: "1" } },
  });
  const session = { "mcp-session-id": init.res.headers.get("mcp-session-id")! };
  const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "trace_run", arguments: {}, task: {}, _meta: { traceparent: PARENT } } };
  const taskId = (await post(call, session)).body.result.task.taskId;
  const done = (await post({ jsonrpc: "2.0", id: 3, method: "tasks/result", params: { taskId } }, session)).body;
  const seen: string = done.result.structuredContent.traceparent.value;
  assert.match(seen, new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
  assert.notEqual(seen, PARENT);
});
