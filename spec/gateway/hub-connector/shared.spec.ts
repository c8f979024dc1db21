// `/mcp` in front of an `"isolation": "shared"` revision (one real start_mcp of the demo app
// for everyone): the rules of the per-tool route hold here too. Outside a person's MCP
// session the shared server's task store is everyone's, so a 2026-07-28 (stateless) request
// is refused on every path, and each `/mcp` session's MCP session on the shared server is
// counted against `sessionsPerUser` and ended there when the `/mcp` session ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness, type Harness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";
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

async function start(
  t: { after(fn: () => unknown): void },
  revision: Record<string, unknown>,
  limits: Record<string, unknown> = {},
  keepaliveMs?: number,
): Promise<Harness> {
  return startHarness(t, { tools: { demo: { revisions: { default: revision } } }, limits }, { ...ENV, ...(keepaliveMs ? { keepaliveMs } : {}) });
}

/** Opens a /mcp session; its initialize names the client, which the tool server then hears. */
async function opened(url: string, token: string, name = "s"): Promise<Record<string, string>> {
  const init = await post(url, token, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } }));
  assert.equal(init.status, 200);
  await init.text();
  return { "mcp-session-id": init.headers.get("mcp-session-id")! };
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

  // A person's own /mcp session still calls the shared tool, tasks included; the task is theirs alone.
  const alices = await opened(url, h.tokens.alice);
  const added = await post(url, h.tokens.alice, rpc("tools/call", { name: "demo_add", arguments: { a: 2, b: 3 } }), alices);
  assert.equal(added.status, 200);
  assert.match(await added.text(), /"text":"5"/);
  const withTask = { "io.modelcontextprotocol/clientCapabilities": TASKS };
  const created = await post(
    url,
    h.tokens.alice,
    rpc("tools/call", { name: "demo_slow_sum", arguments: { values: "1,2", delay: 0 }, _meta: withTask }),
    alices,
  );
  const taskId = (await json(created)).result.taskId as string;
  assert.match(taskId, /^demo\//);
  const own = await post(url, h.tokens.alice, rpc("tasks/get", { taskId, _meta: withTask }), alices);
  assert.equal((await json(own)).result.taskId, taskId);
  const asBob = rpc("tasks/get", { taskId, _meta: meta });
  await refused(await post(url, h.tokens.bob, asBob, stateless("tasks/get", taskId)), "another person's stateless tasks/get of a real task");
  const bobs = await post(url, h.tokens.bob, rpc("tasks/get", { taskId, _meta: withTask }), await opened(url, h.tokens.bob));
  const other = await json(bobs);
  assert.equal(other.result, undefined, "nor through another person's own session");
  assert.ok(other.error, JSON.stringify(other));
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
  // Its id names no MCP session on the shared server: no stream is opened there without one.
  const id = new URL(target).searchParams.get("session_id")!;
  const stream = await fetch(`${h.base}/api/mcp/demo/mcp`, {
    headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", "mcp-session-id": id },
  });
  await refused(stream, "a GET stream named by a legacy stream's id");
  // The stream's own session goes on.
  const added = await post(target, h.tokens.alice, rpc("tools/call", { name: "add", arguments: { a: 1, b: 1 } }, 8));
  assert.equal(added.status, 202);
  await added.text();
  assert.match(JSON.stringify(await sse.nextMessage()), /"id":8.*"text":"2"/);
});

const add = (id = 2): string => rpc("tools/call", { name: "demo_add", arguments: { a: 2, b: 3 } }, id);

test("shared: each /mcp session's MCP session on the shared server counts against sessionsPerUser, and ending it frees the place", {
  timeout: 120_000,
}, async (t) => {
  const h = await start(t, { app: "fixtures/demo/app.ts", isolation: "shared" }, { sessionsPerUser: 2, ratePerSecond: 10_000, rateBurst: 10_000 });
  const url = `${h.base}/mcp`;
  const [a1, a2, a3] = [await opened(url, h.tokens.alice), await opened(url, h.tokens.alice), await opened(url, h.tokens.alice)];
  for (const s of [a1, a2]) {
    const res = await post(url, h.tokens.alice, add(), s);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /"text":"5"/);
  }
  const third = await post(url, h.tokens.alice, add(), a3);
  assert.equal(third.status, 429, "a third session on the shared server is one too many");
  assert.equal((await json(third)).error, "too_many_user_sessions");
  const bobs = await post(url, h.tokens.bob, add(), await opened(url, h.tokens.bob));
  assert.equal(bobs.status, 200, "another person is not held up");
  await bobs.text();

  const gone = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, ...a1 } });
  assert.equal(gone.status, 204);
  const now = await post(url, h.tokens.alice, add(), a3);
  assert.equal(now.status, 200, "the ended session gave its place back");
  await now.text();

  // Concurrent first calls from new sessions: the places are held while the sessions open, so only what is left passes.
  const carols = await Promise.all([1, 2, 3, 4, 5].map(() => opened(url, h.tokens.carol)));
  const statuses = await Promise.all(
    carols.map(async (s) => {
      const res = await post(url, h.tokens.carol, add(), s);
      await res.text();
      return res.status;
    }),
  );
  assert.deepEqual(
    statuses.sort((x, y) => x - y),
    [200, 200, 429, 429, 429],
  );
});

/** A `url` tool server that names each MCP session after the client that opened it and tells of each DELETE. */
async function watchedTool(t: { after(fn: () => unknown): void }) {
  const deleted = new Set<string>();
  const waiters: Array<() => void> = [];
  const stub = await upstreamStub(t, (msg, req, res) => {
    if (req.method === "DELETE") {
      deleted.add(String(req.headers["mcp-session-id"]));
      waiters.splice(0).forEach((w) => w());
      return void res.writeHead(200).end();
    }
    if (msg.method === "initialize") {
      res.setHeader("mcp-session-id", `up-${(msg.params!.clientInfo as { name: string }).name}`);
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    }
    if (msg.method === "tools/list") return reply(res, msg, { tools: [{ name: "add", inputSchema: { type: "object" } }] });
    if (msg.method === "tools/call") return reply(res, msg, { content: [{ type: "text", text: "5" }] });
    res.writeHead(202).end();
  });
  const until = async (session: string): Promise<void> => {
    while (!deleted.has(session)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { url: stub.url, deleted, until };
}

test("a /mcp session's MCP sessions on tool servers end with it: at its DELETE, and when a person's bound forgets it", { timeout: 60_000 }, async (t) => {
  const tool = await watchedTool(t);
  const h = await start(t, { url: tool.url }, { ratePerSecond: 10_000, rateBurst: 10_000 });
  const url = `${h.base}/mcp`;
  const first = await opened(url, h.tokens.alice, "first");
  await (await post(url, h.tokens.alice, add(), first)).text();
  assert.ok(!tool.deleted.has("up-first"));
  const gone = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, ...first } });
  assert.equal(gone.status, 204);
  assert.ok(tool.deleted.has("up-first"), "ended on the tool server before the DELETE is answered");

  // A person's hundredth-and-first session forgets their oldest, which ends on the tool server too.
  const oldest = await opened(url, h.tokens.alice, "oldest");
  await (await post(url, h.tokens.alice, add(), oldest)).text();
  for (let i = 0; i < 100; i++) await opened(url, h.tokens.alice, `n${i}`);
  await tool.until("up-oldest");
  assert.equal((await post(url, h.tokens.alice, add(), oldest)).status, 404);
});

test("an idle /mcp session is ended on the tool server; one with a stream open is not idle", { timeout: 60_000 }, async (t) => {
  const tool = await watchedTool(t);
  const h = await start(t, { url: tool.url }, { idleMinutes: 0.05 }, 100);
  const url = `${h.base}/mcp`;
  const listening = await opened(url, h.tokens.alice, "listening");
  const stream = new AbortController();
  t.after(() => stream.abort());
  const held = await fetch(url, { headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", ...listening }, signal: stream.signal });
  assert.equal(held.status, 200);
  await (await post(url, h.tokens.alice, add(), listening)).text();
  // The stream is kept alive (and its sessions used) while it is open.
  const reader = held.body!.getReader();
  let text = "";
  while (!text.includes(": keepalive")) text += new TextDecoder().decode((await reader.read()).value);
  const idle = await opened(url, h.tokens.alice, "idle");
  await (await post(url, h.tokens.alice, add(), idle)).text();
  await tool.until("up-idle");
  assert.ok(!tool.deleted.has("up-listening"), "a client listening on its stream is not idle");
  assert.equal((await post(url, h.tokens.alice, add(), idle)).status, 404, "the client initializes again");
  // Ending the listening session ends its stream too.
  const gone = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, ...listening } });
  assert.equal(gone.status, 204);
  assert.ok(tool.deleted.has("up-listening"));
  while (!(await reader.read()).done);
});

test("a call still on its way when its /mcp session ends opens nothing on the tool server", { timeout: 60_000 }, async (t) => {
  const inits: string[] = [];
  let listed: () => void = () => {};
  let listing: () => void = () => {};
  const asked = new Promise<void>((done) => (listing = done));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") {
      inits.push((msg.params!.clientInfo as { name: string }).name);
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    }
    // The first listing (the catalog fill the call waits on) is held until the session has ended.
    if (msg.method === "tools/list") return void ((listed = () => reply(res, msg, { tools: [{ name: "add", inputSchema: { type: "object" } }] })), listing());
    res.writeHead(202).end();
  });
  const h = await start(t, { url: stub.url });
  const url = `${h.base}/mcp`;
  const session = await opened(url, h.tokens.alice, "late");
  const call = post(url, h.tokens.alice, add(), session);
  await asked;
  const gone = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, ...session } });
  assert.equal(gone.status, 204);
  listed();
  const res = await call;
  assert.equal(res.status, 404);
  assert.equal((await json(res)).error, "unknown_session");
  assert.deepEqual(inits, ["hub_gateway catalog"], "only the catalog's own short session was opened");
});

test("a tool server that forgot a /mcp session's MCP session gets a new one, and the call goes through", { timeout: 60_000 }, async (t) => {
  const opens: string[] = [];
  const stub = await upstreamStub(t, (msg, req, res) => {
    if (msg.method === "initialize") {
      const session = `up-${opens.length}`;
      opens.push(session);
      res.setHeader("mcp-session-id", session);
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    }
    if (msg.method === "tools/list") return reply(res, msg, { tools: [{ name: "add", inputSchema: { type: "object" } }] });
    // The session the call first names is one this server has forgotten (a restart, its own idle bound).
    if (msg.method === "tools/call" && req.headers["mcp-session-id"] === "up-1") return void res.writeHead(404).end();
    if (msg.method === "tools/call") return reply(res, msg, { content: [{ type: "text", text: String(req.headers["mcp-session-id"]) }] });
    res.writeHead(202).end();
  });
  const h = await start(t, { url: stub.url });
  const url = `${h.base}/mcp`;
  const res = await post(url, h.tokens.alice, add(), await opened(url, h.tokens.alice));
  assert.equal(res.status, 200);
  assert.match(await res.text(), /"text":"up-2"/);
  assert.deepEqual(opens, ["up-0", "up-1", "up-2"], "the catalog's, the forgotten one, the new one");
});
