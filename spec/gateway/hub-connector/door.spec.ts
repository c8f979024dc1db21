// How a single relayed call's answer reaches a /mcp client now that lib/mcp answers the POST
// (issue 35): an answer with nothing to rename goes through as the tool's own bytes; a tool's
// JSON-RPC error is that call's error under the status a session's method error gets; a
// broken answer is the gateway's 502 or, once the answer streams, its last event; a call the
// tool cancelled is owed nothing.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { test } from "node:test";
import type { SpanRecord } from "../../../lib/telemetry/span.ts";
import { SPAN_CHANNEL } from "../../../lib/telemetry/tracer.ts";
import { post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

const INITIALIZED = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } };
const TOOLS = { tools: ["bytes", "refuses", "broken", "cut", "cancelled"].map((name) => ({ name, inputSchema: { type: "object" } })) };
/** Spaced and ordered as no serializer of ours writes it: only the tool's bytes look like this. */
const OWN_BYTES = (id: unknown) => `{ "result" : { "content" : [ { "type":"text", "text":"as is" } ] } , "id" : ${JSON.stringify(id)}, "jsonrpc":"2.0" }`;

test("a single call at /mcp: the tool's bytes as they are, its error as a method error, a broken answer as the gateway's", { timeout: 60_000 }, async (t) => {
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    if (msg.method === "tasks/list") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }));
    }
    if (msg.method !== "tools/call") return reply(res, msg, {});
    switch (msg.params?.name) {
      case "bytes":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(OWN_BYTES(msg.id));
      case "refuses":
        res.writeHead(400, { "content-type": "application/json" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "Invalid params: no" } }));
      case "broken":
        res.writeHead(502, { "content-type": "text/plain" });
        return res.end("bad gateway");
      case "cut":
        // Progress, then the stream ends with no response.
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })}\n\n`,
        );
        return res.end();
      default:
        // A tool server answers a call it cancelled with 202 and no response.
        res.writeHead(202, { "content-length": 0 });
        return res.end();
    }
  });
  const h = await startHarness(t, { tools: { stub: { revisions: { default: { url: stub.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  const call = (name: string, id: number) => post(url, h.tokens.alice, rpc("tools/call", { name: `stub_${name}`, arguments: {} }, id), session);

  const bytes = await call("bytes", 1);
  assert.equal(bytes.status, 200);
  assert.equal(bytes.headers.get("mcp-session-id"), session["mcp-session-id"]);
  assert.equal(await bytes.text(), OWN_BYTES(1));

  const refuses = await call("refuses", 2);
  assert.equal(refuses.status, 200);
  assert.deepEqual(await refuses.json(), { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "Invalid params: no" } });

  const broken = await call("broken", 3);
  assert.equal(broken.status, 502);
  assert.deepEqual(await broken.json(), { error: "upstream_refused", message: "The tool gave no answer to this call" });

  const cut = await call("cut", 4);
  assert.equal(cut.status, 200);
  assert.match(cut.headers.get("content-type")!, /text\/event-stream/);
  const events = (await cut.text())
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number; error?: { code: number; message: string } });
  assert.deepEqual(
    events.map((e) => e.method ?? e.error?.message),
    ["notifications/progress", "The tool gave no answer to this call"],
  );
  assert.equal(events[1]!.id, 4);

  const cancelled = await call("cancelled", 5);
  assert.equal(cancelled.status, 202);
  assert.equal(await cancelled.text(), "");

  // /mcp's own methods: a level that is none, the tasks of a tool that cannot list them; 2026-07-28 has no tasks/list, as at a tool server.
  assert.deepEqual(await (await post(url, h.tokens.alice, rpc("logging/setLevel", {}, 6), session)).json(), { jsonrpc: "2.0", id: 6, result: {} });
  assert.deepEqual(await (await post(url, h.tokens.alice, rpc("tasks/list", {}, 7), session)).json(), { jsonrpc: "2.0", id: 7, result: { tasks: [] } });
  const meta = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } };
  const stateless = await post(url, h.tokens.alice, rpc("tasks/list", meta, 8), { "mcp-protocol-version": "2026-07-28", "mcp-method": "tasks/list" });
  assert.equal(stateless.status, 404);
  assert.equal(((await stateless.json()) as { error: { code: number } }).error.code, -32601);
  // initialize without params is the latest revision's session.
  const bare = await post(url, h.tokens.alice, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "initialize" }));
  assert.equal(bare.status, 200);
  assert.ok(bare.headers.get("mcp-session-id"));
  await bare.arrayBuffer();
});

test("traced, a call at /mcp makes the gateway's span alone: lib/mcp answering the POST adds none of its own", { timeout: 60_000 }, async (t) => {
  const names: string[] = [];
  const named = (span: unknown): void => void names.push((span as SpanRecord).name);
  subscribe(SPAN_CHANNEL, named);
  t.after(() => unsubscribe(SPAN_CHANNEL, named));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    return reply(res, msg, { content: [{ type: "text", text: "fine" }] });
  });
  const h = await startHarness(t, { tools: { stub: { revisions: { default: { url: stub.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  names.length = 0;
  const called = await post(url, h.tokens.alice, rpc("tools/call", { name: "stub_bytes", arguments: {} }, 1), session);
  assert.equal(called.status, 200);
  await called.arrayBuffer();
  const pinged = await post(url, h.tokens.alice, rpc("ping", {}, 2), session);
  await pinged.arrayBuffer();
  // The gateway's span names the tool's own name; one of lib/mcp's would name the exposed one, or the ping.
  assert.deepEqual(names, ["tools/call bytes"]);
});

test("a batch of many calls at /mcp answers them all without piling listeners on its one answer", { timeout: 60_000 }, async (t) => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on("warning", onWarning);
  t.after(() => process.off("warning", onWarning));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    return reply(res, msg, { content: [{ type: "text", text: `fine ${String(msg.id)}` }] });
  });
  const h = await startHarness(t, { tools: { stub: { revisions: { default: { url: stub.url } } } }, limits: { upstreamRequestsPerUser: 100 } });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  const ids = Array.from({ length: 40 }, (_, i) => i + 1);
  const res = await post(url, h.tokens.alice, `[${ids.map((id) => rpc("tools/call", { name: "stub_bytes", arguments: {} }, id)).join(",")}]`, session);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { id: number; result: { content: { text: string }[] } }[];
  assert.deepEqual(
    body.map((a) => a.result.content[0]!.text),
    ids.map((id) => `fine ${id}`),
  );
  // A warning is emitted on the next turn.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(warnings, []);
});
