// `/mcp` in front of an `"isolation": "shared"` revision (one real start_mcp of the demo app
// for everyone): the rules of the per-tool route hold here too. Outside a person's MCP
// session the shared server's task store is everyone's, so a 2026-07-28 (stateless) request
// is refused on every path, and each `/mcp` session's MCP session on the shared server is
// counted against `sessionsPerUser` and ended there when the `/mcp` session ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness, type Harness } from "../helpers.ts";
import { openSse } from "../../helpers/sse-client.ts";

const V = "2026-07-28";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": TASKS };
const ENV = { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } };
const INIT = rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "s", version: "1" } });
const stateless = (method: string, name?: string): Record<string, string> => ({
  "mcp-protocol-version": V,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

async function start(t: { after(fn: () => unknown): void }, revision: Record<string, unknown>, limits: Record<string, unknown> = {}): Promise<Harness> {
  return startHarness(t, { tools: { demo: { revisions: { default: revision } } }, limits }, ENV);
}

async function refused(res: Response, what: string): Promise<void> {
  assert.equal(res.status, 400, what);
  assert.equal((await json(res)).error, "session_required", what);
}

test("shared: a stateless task cannot be made through /mcp, nor read by another person", { timeout: 120_000 }, async (t) => {
  const h = await start(t, { app: "fixtures/demo/app.ts", isolation: "shared" });
  const url = `${h.base}/mcp`;
  const listed = (await json(await post(url, h.tokens.bob, rpc("tools/list", { _meta: meta }), stateless("tools/list")))).result;
  assert.ok(
    listed.tools.some((x: { name: string }) => x.name === "demo_slow_sum"),
    "listing stays open to stateless clients",
  );

  const call = rpc("tools/call", { name: "demo_slow_sum", arguments: { values: "1,2", delay: 0 }, _meta: meta });
  await refused(await post(url, h.tokens.alice, call, stateless("tools/call", "demo_slow_sum")), "a stateless call to a shared tool");
  // Whatever id is named, a stateless tasks/get never reaches the shared server's task store.
  const get = rpc("tasks/get", { taskId: "demo/any-task", _meta: meta });
  await refused(await post(url, h.tokens.bob, get, stateless("tasks/get", "demo/any-task")), "a stateless tasks/get");
  // The same request on the tool's own route is refused by the same rule.
  await refused(await post(`${h.base}/api/mcp/demo/mcp`, h.tokens.alice, call, stateless("tools/call", "slow_sum")), "the per-tool route");

  // A person's own /mcp session still calls the shared tool.
  const opened = await post(url, h.tokens.alice, INIT);
  const sid = opened.headers.get("mcp-session-id")!;
  await opened.text();
  const added = await post(url, h.tokens.alice, rpc("tools/call", { name: "demo_add", arguments: { a: 2, b: 3 } }), { "mcp-session-id": sid });
  assert.equal(added.status, 200);
  assert.match(await added.text(), /"text":"5"/);
});

test("shared: a stateless POST on a legacy SSE stream is refused before it reaches the shared server", { timeout: 120_000 }, async (t) => {
  const h = await start(t, { app: "fixtures/demo/app.ts", isolation: "shared" });
  const sse = await openSse(`${h.base}/api/mcp/demo/sse`, {
    headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream" },
    timeoutMs: 60_000,
  });
  t.after(() => sse.close());
  const endpoint = (await sse.until("endpoint")).data;
  const target = new URL(endpoint, h.base).href;
  const init = await post(target, h.tokens.alice, INIT);
  assert.equal(init.status, 202);
  await init.text();
  await sse.nextMessage();
  const call = rpc("tools/call", { name: "slow_sum", arguments: { values: "1,2", delay: 0 }, _meta: meta }, 7);
  await refused(await post(target, h.tokens.alice, call, stateless("tools/call", "slow_sum")), "a stateless request on the legacy stream");
  // The stream's own session goes on.
  const added = await post(target, h.tokens.alice, rpc("tools/call", { name: "add", arguments: { a: 1, b: 1 } }, 8));
  assert.equal(added.status, 202);
  await added.text();
  assert.match(JSON.stringify(await sse.nextMessage()), /"id":8.*"text":"2"/);
});
