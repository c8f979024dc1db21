// Streamable HTTP on /mcp (MCP 2025-11-25 basic/transports): Accept
// handling, JSON or a lazily opened SSE reply, priming events, event ids, concurrent POST
// streams, Last-Event-ID replay, the MCP-Protocol-Version check, server requests on the
// right stream.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { openSse, type SseConnection, type SseMessage } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

const BOTH = { accept: "application/json, text/event-stream" };
const JSON_ONLY = { accept: "application/json" };
const NO_ARGS = { type: "object", properties: {} } as const;

/** Calls waiting in `held` tools, released by the test. */
const gates: (() => void)[] = [];
const gate = (): Promise<void> => new Promise((resolve) => gates.push(resolve));
const openGate = async (): Promise<void> => {
  while (gates.length === 0) await new Promise((r) => setImmediate(r));
  gates.shift()!();
};

const server = new McpServer("streamable", { sseRetryMs: 250 });
server.tool(function quiet() {
  return "quiet";
});
server.tool(
  async function chatty(args: Record<string, unknown>, ctx: ToolContext) {
    ctx.info(`one ${String(args.tag ?? "")}`);
    ctx.info(`two ${String(args.tag ?? "")}`);
    return `done ${String(args.tag ?? "")}`;
  },
  { inputSchema: { type: "object", properties: { tag: { type: "string" } } } },
);
server.tool(
  async function held(args: Record<string, unknown>, ctx: ToolContext) {
    ctx.info(`before ${String(args.tag ?? "")}`);
    await gate();
    ctx.info(`after ${String(args.tag ?? "")}`);
    return `released ${String(args.tag ?? "")}`;
  },
  { inputSchema: { type: "object", properties: { tag: { type: "string" } } } },
);
server.tool(
  async function ask(_args: Record<string, unknown>, ctx: ToolContext) {
    const answer = await ctx.elicit("Name?", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    return answer.action === "accept" ? `hi ${String(answer.content?.name)}` : answer.action;
  },
  { inputSchema: NO_ARGS },
);
server.tool(
  async function polling(_args: Record<string, unknown>, ctx: ToolContext) {
    ctx.detach();
    ctx.info("while away");
    await gate();
    return "polled";
  },
  { inputSchema: NO_ARGS },
);
const running = await server.listen({ port: 0 });
after(() => running.close());
const mcp = `${running.url}mcp`;

async function initialize(capabilities: Record<string, unknown> = {}): Promise<string> {
  const init = await post(mcp, rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } }), BOTH);
  assert.equal(init.status, 200);
  const id = init.headers.get("mcp-session-id");
  assert.ok(id);
  return id;
}

const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => rpc(id, "tools/call", { name, arguments: args });

const connections = (): Promise<number> => new Promise((resolve, reject) => running.httpServer.getConnections((err, n) => (err ? reject(err) : resolve(n))));

/** Closes a client stream and waits until the server has seen the connection go. */
async function dropped(c: SseConnection): Promise<void> {
  const before = await connections();
  c.close();
  await c.ended;
  while ((await connections()) >= before) await new Promise((r) => setImmediate(r));
}

async function drain(c: SseConnection): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for (;;) {
    try {
      out.push(await c.next());
    } catch {
      return out;
    }
  }
}

test("a call that sends nothing before its result is answered as plain JSON, even when SSE is accepted", async () => {
  const reply = await post(mcp, call(1, "quiet"), BOTH);
  assert.equal(reply.status, 200);
  assert.match(reply.headers.get("content-type")!, /^application\/json/);
  assert.equal(reply.json.result.content[0].text, "quiet");
});

test("related messages turn the POST into an SSE stream: priming event first, ids in order, the response last", async (t) => {
  const session = await initialize();
  const c = await openSse(mcp, { body: call(7, "chatty", { tag: "x" }), headers: { ...BOTH, "mcp-session-id": session } });
  t.after(() => c.close());
  assert.equal(c.status, 200);
  assert.match(String(c.headers["content-type"]), /^text\/event-stream/);
  assert.equal(c.headers["mcp-session-id"], session);
  assert.equal(c.headers["cache-control"], "no-cache, no-transform");
  const events = await drain(c);
  const [priming, ...rest] = events;
  assert.deepEqual([priming!.data, priming!.hasId, priming!.retry], ["", true, 250]);
  const messages = rest.map((e) => JSON.parse(e.data));
  assert.deepEqual(
    messages.map((m) => m.method ?? "response"),
    ["notifications/message", "notifications/message", "response"],
  );
  assert.equal(messages[0].params.data, "one x");
  assert.deepEqual(messages[2], { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "done x" }], isError: false } });
  const ids = events.map((e) => e.lastEventId);
  const [prefix] = ids[0]!.split(".");
  assert.deepEqual(
    ids,
    [1, 2, 3, 4].map((n) => `${prefix}.${n}`),
  );
});

test("without text/event-stream in Accept, related messages go to the session's GET /mcp stream and the POST answers JSON", async (t) => {
  const session = await initialize();
  const stream = await openSse(`${mcp}?session_id=${session}`);
  t.after(() => stream.close());
  // The session is named, so the client knows its POST URL: the official SDK clients warn on an
  // `endpoint` event, so it comes as a comment before a plain priming event.
  const primer = await stream.next();
  assert.deepEqual([primer.event, primer.data, primer.hasId, primer.retry], ["message", "", true, 250]);
  assert.deepEqual(stream.comments, [`endpoint /mcp?session_id=${session}`]);
  const reply = await post(mcp, call(2, "chatty", { tag: "g" }), { ...JSON_ONLY, "mcp-session-id": session });
  assert.equal(reply.status, 200);
  assert.equal(reply.json.result.content[0].text, "done g");
  const one = await stream.nextMessage();
  assert.deepEqual([one.method, one.params.data], ["notifications/message", "one g"]);
  assert.equal((await stream.nextMessage()).params.data, "two g");
});

test("a session-less JSON-only call with related messages still answers; the messages have nowhere to go", async () => {
  const reply = await post(mcp, call(3, "chatty"), JSON_ONLY);
  assert.equal(reply.status, 200);
  assert.equal(reply.json.result.content[0].text, "done ");
  for (const accept of ["*/*", undefined]) {
    // curl: a wildcard (or no Accept at all) is answered with plain JSON, never a stream.
    const res = await fetch(mcp, { method: "POST", body: JSON.stringify(call(4, "chatty")), headers: accept ? { accept } : {} });
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    await res.body?.cancel();
  }
});

test("Accept: missing or */* is fine, SSE-only gets a one-event stream, neither JSON nor SSE gets 406", async (t) => {
  const none = await fetch(mcp, { method: "POST", body: JSON.stringify(rpc(1, "ping")) });
  assert.deepEqual([none.status, await none.json()], [200, { jsonrpc: "2.0", id: 1, result: {} }]);
  assert.equal((await post(mcp, rpc(1, "ping"), { accept: "*/*" })).status, 200);
  assert.equal((await post(mcp, rpc(1, "ping"), { accept: "application/*;q=0.9" })).status, 200);
  const refused = await post(mcp, rpc(1, "ping"), { accept: "text/html" });
  assert.equal(refused.status, 406);
  assert.equal(refused.json.error.code, -32600);
  assert.equal((await post(mcp, rpc(1, "ping"), { accept: "application/json;q=0, text/html" })).status, 406);
  const sseOnly = await openSse(mcp, { body: rpc(9, "ping"), headers: { accept: "text/event-stream" } });
  t.after(() => sseOnly.close());
  assert.match(String(sseOnly.headers["content-type"]), /^text\/event-stream/);
  assert.deepEqual(await sseOnly.nextMessage(), { jsonrpc: "2.0", id: 9, result: {} });
  const getJson = await fetch(mcp, { headers: { accept: "application/json" } });
  assert.equal(getJson.status, 406);
  await getJson.body?.cancel();
  const notification = await post(mcp, { jsonrpc: "2.0", method: "notifications/initialized" }, { accept: "text/event-stream" });
  assert.deepEqual([notification.status, notification.json], [202, { status: "accepted" }]);
});

test("MCP-Protocol-Version: every supported version passes, anything else is 400", async () => {
  for (const v of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
    assert.equal((await post(mcp, rpc(1, "ping"), { "mcp-protocol-version": v })).status, 200, v);
  }
  const bad = await post(mcp, rpc(1, "ping"), { "mcp-protocol-version": "1999-01-01" });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.id, null);
  assert.match(bad.json.error.message, /MCP-Protocol-Version/);
  assert.ok(!bad.text.includes("1999"), "the bad value is not echoed");
});

test("a GET stream or REST call naming the sessionless 2026-07-28 revision is 400: only session revisions have those routes", async () => {
  const before = server.sessions.size;
  for (const [method, path] of [
    ["GET", "mcp"],
    ["GET", "sse"],
    ["POST", "tools/add"],
  ] as const) {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: { accept: "text/event-stream, application/json", "content-type": "application/json", "mcp-protocol-version": "2026-07-28" },
      ...(method === "POST" ? { body: "{}" } : {}),
    });
    assert.equal(res.status, 400, `${method} /${path}`);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /MCP-Protocol-Version/);
  }
  assert.equal(server.sessions.size, before, "no session was minted");
});

test("several concurrent POST streams in one session each carry only their own request's messages", async (t) => {
  const session = await initialize();
  const headers = { ...BOTH, "mcp-session-id": session };
  const streams = await Promise.all(["a", "b", "c"].map((tag, i) => openSse(mcp, { body: call(100 + i, "held", { tag }), headers })));
  t.after(() => streams.forEach((s) => s.close()));
  for (const [i, s] of streams.entries()) {
    assert.equal((await s.nextMessage()).params.data, `before ${"abc"[i]}`);
  }
  for (let i = 0; i < 3; i++) await openGate();
  for (const [i, s] of streams.entries()) {
    const tag = "abc"[i];
    const after = await s.nextMessage();
    assert.equal(after.params.data, `after ${tag}`);
    const response = await s.nextMessage();
    assert.deepEqual([response.id, response.result.content[0].text], [100 + i, `released ${tag}`]);
    await s.ended;
  }
});

test("GET /mcp with Last-Event-ID replays what that stream sent after the id, and nothing from other streams", async (t) => {
  const session = await initialize();
  const first = await openSse(mcp, { headers: { "mcp-session-id": session } });
  await first.opened();
  const s = server.sessions.get(session)!;
  for (const n of [1, 2, 3]) s.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });
  const got = [await first.next(), await first.next(), await first.next()];
  assert.deepEqual(
    got.map((e) => JSON.parse(e.data).params.data),
    [1, 2, 3],
  );
  first.close();
  await first.ended;
  const resumed = await openSse(mcp, { headers: { "mcp-session-id": session, "last-event-id": got[0]!.lastEventId } });
  t.after(() => resumed.close());
  const endpoint = await resumed.next();
  assert.deepEqual([endpoint.event, endpoint.data], ["message", ""]);
  assert.equal(endpoint.lastEventId.split(".")[0], got[0]!.lastEventId.split(".")[0], "same stream");
  const replayed = [await resumed.next(), await resumed.next()];
  assert.deepEqual(
    replayed.map((e) => [e.lastEventId, JSON.parse(e.data).params.data]),
    [
      [got[1]!.lastEventId, 2],
      [got[2]!.lastEventId, 3],
    ],
  );
  // Live traffic continues on the resumed stream.
  s.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 4 } });
  assert.equal((await resumed.nextMessage()).params.data, 4);
  // An id this server never minted, or from another stream family, just opens a fresh stream.
  const fresh = await openSse(mcp, { headers: { "mcp-session-id": session, "last-event-id": "nonsense" } });
  t.after(() => fresh.close());
  assert.equal((await fresh.next()).data, "");
});

test("a POST stream dropped mid-call keeps running and is resumed with GET + Last-Event-ID, response included", async (t) => {
  const session = await initialize();
  const c = await openSse(mcp, { body: call("r1", "held", { tag: "r" }), headers: { ...BOTH, "mcp-session-id": session } });
  const priming = await c.next();
  const before = await c.next();
  assert.equal(JSON.parse(before.data).params.data, "before r");
  await dropped(c);
  await openGate();
  const resumed = await openSse(mcp, { headers: { "mcp-session-id": session, "last-event-id": before.lastEventId } });
  t.after(() => resumed.close());
  const events = await drain(resumed);
  assert.equal(events[0]!.data, "", "a new priming event");
  assert.equal(events[0]!.lastEventId.split(".")[0], priming.lastEventId.split(".")[0]);
  const messages = events.slice(1).map((e) => JSON.parse(e.data));
  assert.deepEqual(messages[0].params.data, "after r");
  assert.deepEqual(messages[1], { jsonrpc: "2.0", id: "r1", result: { content: [{ type: "text", text: "released r" }], isError: false } });
  assert.equal(events.length, 3, "the resumed stream ends after the response, with no endpoint event");
});

test("a server request rides the POST's stream; the answer POST gets 202 and the call completes on the stream", async (t) => {
  const session = await initialize({ elicitation: {} });
  const c = await openSse(mcp, { body: call(5, "ask"), headers: { ...BOTH, "mcp-session-id": session } });
  t.after(() => c.close());
  const request = await c.nextMessage();
  assert.equal(request.method, "elicitation/create");
  const answer = await post(
    mcp,
    { jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { name: "Ada" } } },
    { ...BOTH, "mcp-session-id": session },
  );
  assert.deepEqual([answer.status, answer.json], [202, { status: "accepted" }]);
  const response = await c.nextMessage();
  assert.deepEqual(response, { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "hi Ada" }], isError: false } });
});

test("without SSE on the POST, a server request goes to GET /mcp, else to the session's /sse stream", async (t) => {
  const session = await initialize({ elicitation: {} });
  const legacy = await openSse(`${running.url}sse?session_id=${session}`);
  t.after(() => legacy.close());
  await legacy.until("endpoint");
  const pending = post(mcp, call(6, "ask"), { ...JSON_ONLY, "mcp-session-id": session });
  const viaSse = await legacy.nextMessage();
  assert.equal(viaSse.method, "elicitation/create");
  await post(mcp, { jsonrpc: "2.0", id: viaSse.id, result: { action: "decline" } }, { "mcp-session-id": session });
  assert.equal((await pending).json.result.content[0].text, "decline");

  const standalone = await openSse(mcp, { headers: { "mcp-session-id": session } });
  t.after(() => standalone.close());
  await standalone.opened();
  const pending2 = post(mcp, call(8, "ask"), { ...JSON_ONLY, "mcp-session-id": session });
  const viaGet = await standalone.nextMessage();
  assert.equal(viaGet.method, "elicitation/create");
  await post(mcp, { jsonrpc: "2.0", id: viaGet.id, result: { action: "cancel" } }, { "mcp-session-id": session });
  assert.equal((await pending2).json.result.content[0].text, "cancel");
});

test("every stream gets keepalive comments", async (t) => {
  const quick = new McpServer("keepalive", { keepaliveMs: 20 });
  quick.tool(
    async function slow(_a: Record<string, unknown>, ctx: ToolContext) {
      ctx.info("started");
      await gate();
      return "ok";
    },
    { inputSchema: NO_ARGS },
  );
  const r = await quick.listen({ port: 0 });
  t.after(() => r.close());
  const get = await openSse(`${r.url}mcp`);
  t.after(() => get.close());
  const postStream = await openSse(`${r.url}mcp`, { body: call(1, "slow"), headers: BOTH });
  t.after(() => postStream.close());
  await postStream.nextMessage();
  for (const c of [get, postStream]) {
    while (!c.comments.includes("keepalive")) await new Promise((resolve) => setImmediate(resolve));
  }
  await openGate();
  assert.equal((await postStream.nextMessage()).result.content[0].text, "ok");
});

test("ctx.detach(): the server ends the connection after the priming event; GET + Last-Event-ID collects the rest", async (t) => {
  const session = await initialize();
  const c = await openSse(mcp, { body: call("poll", "polling"), headers: { ...BOTH, "mcp-session-id": session } });
  const events = await drain(c);
  assert.equal(events.length, 1, "only the priming event before the server closed the connection");
  assert.deepEqual([events[0]!.data, events[0]!.retry], ["", 250]);
  await openGate();
  const resumed = await openSse(mcp, { headers: { "mcp-session-id": session, "last-event-id": events[0]!.lastEventId } });
  t.after(() => resumed.close());
  const rest = await drain(resumed);
  assert.deepEqual(
    rest.slice(1).map((e) => JSON.parse(e.data)),
    [
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "while away" } },
      { jsonrpc: "2.0", id: "poll", result: { content: [{ type: "text", text: "polled" }], isError: false } },
    ],
  );
  // Session-less or JSON-only, detach() does nothing and the call answers as usual.
  const json = post(mcp, call("poll-2", "polling"), { ...JSON_ONLY, "mcp-session-id": session });
  await openGate();
  assert.equal((await json).json.result.content[0].text, "polled");
});
