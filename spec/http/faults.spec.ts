// Bad input and faults on the transport: malformed bodies and answers, a client
// that never reads its stream, replay that stays bounded and inside its own session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { McpServer } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

async function start(t: { after(fn: () => unknown): void }, options: ConstructorParameters<typeof McpServer>[1] = {}) {
  const server = new McpServer("faults", options);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  return { server, running, mcp: `${running.url}mcp` };
}

async function initialize(mcp: string): Promise<string> {
  const init = await post(
    mcp,
    rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "1" } }),
  );
  return init.headers.get("mcp-session-id")!;
}

test("malformed bodies and answers get short errors or 202, and the server keeps serving", async (t) => {
  const { mcp } = await start(t);
  const id = await initialize(mcp);
  const h = { "mcp-session-id": id };
  const cases: [unknown, number][] = [
    ['{"jsonrpc":"2.0","id":1,', 400],
    [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 400],
    [{ jsonrpc: "2.0", id: "server-nope", result: 5 }, 202],
    [{ jsonrpc: "2.0", id: "server-nope", error: { code: 1 } }, 202],
    [{ jsonrpc: "2.0", id: "server-nope" }, 400],
    [{ jsonrpc: "1.0", id: 1, method: "ping" }, 400],
    [
      [
        { jsonrpc: "2.0", id: "server-a", result: {} },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ],
      202,
    ],
    [[], 400],
    ["null", 400],
  ];
  for (const [body, status] of cases) {
    const reply = await post(mcp, body, h);
    assert.equal(reply.status, status, JSON.stringify(body));
    if (status === 202) assert.deepEqual(reply.json, { status: "accepted" });
    else assert.equal(reply.json.jsonrpc, "2.0");
  }
  assert.deepEqual((await post(mcp, rpc(9, "ping"), h)).json, { jsonrpc: "2.0", id: 9, result: {} });
});

test("a client that never reads its GET /mcp stream is dropped; the session and other clients carry on", async (t) => {
  const { server, running, mcp } = await start(t, { maxStreamBufferBytes: 32 * 1024 });
  const id = await initialize(mcp);
  const session = server.sessions.get(id)!;
  const socket = connect(running.port, "127.0.0.1");
  t.after(() => socket.destroy());
  socket.on("error", () => {});
  await new Promise<void>((r) => socket.once("connect", () => r()));
  socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${id}\r\n\r\n`);
  socket.pause();
  while (session.streams.size === 0) await new Promise((r) => setImmediate(r));
  const big = "y".repeat(32 * 1024);
  let sends = 0;
  while (session.streams.size > 0 && sends < 4096) {
    session.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: big } });
    if (++sends % 16 === 0) await new Promise((r) => setImmediate(r));
  }
  assert.equal(session.streams.size, 0, "the unread stream was dropped");
  assert.equal(server.sessions.get(id), session, "the session itself lives on");
  const other = await openSse(mcp, { headers: { "mcp-session-id": id } });
  t.after(() => other.close());
  await other.opened();
  session.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "still here" } });
  assert.equal((await other.nextMessage()).params.data, "still here");
  assert.equal((await post(mcp, rpc(1, "ping"))).status, 200);
});

test("replay is bounded per stream and never crosses sessions", async (t) => {
  const { server, mcp } = await start(t, { replayEvents: 3 });
  const id = await initialize(mcp);
  const first = await openSse(mcp, { headers: { "mcp-session-id": id } });
  const endpoint = await first.opened();
  const session = server.sessions.get(id)!;
  for (let n = 1; n <= 10; n++) session.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });
  for (let n = 1; n <= 10; n++) await first.next();
  first.close();
  await first.ended;
  while (session.streams.size > 0) await new Promise((r) => setImmediate(r));
  const resumed = await openSse(mcp, { headers: { "mcp-session-id": id, "last-event-id": endpoint.lastEventId } });
  t.after(() => resumed.close());
  await resumed.opened();
  const replayed = [await resumed.next(), await resumed.next(), await resumed.next()].map((e) => JSON.parse(e.data).params.data);
  assert.deepEqual(replayed, [8, 9, 10], "only the last three were kept");

  const stranger = await initialize(mcp);
  const foreign = await openSse(mcp, { headers: { "mcp-session-id": stranger, "last-event-id": endpoint.lastEventId } });
  t.after(() => foreign.close());
  const opened = await foreign.next();
  assert.deepEqual([opened.hasId, opened.data], [true, ""], "a priming event");
  assert.notEqual(opened.lastEventId.split(".")[0], endpoint.lastEventId.split(".")[0], "a fresh stream, not the other session's");
  server.sessions.get(stranger)!.send({ jsonrpc: "2.0", method: "ping", id: "server-1" });
  assert.equal((await foreign.nextMessage()).method, "ping", "nothing of the other session was replayed before it");
});

test("ending a session aborts calls whose SSE reply it took away, and forgets what their streams kept", async (t) => {
  const { server, mcp } = await start(t);
  const reasons: string[] = [];
  server.tool(
    async function lingering(_a: Record<string, unknown>, ctx: { info(d: unknown): void; signal: AbortSignal }) {
      ctx.info("hello");
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      reasons.push(String((ctx.signal.reason as Error).message));
      return "bye";
    },
    { inputSchema: { type: "object", properties: {} } },
  );
  const id = await initialize(mcp);
  const c = await openSse(mcp, {
    body: rpc(1, "tools/call", { name: "lingering", arguments: {} }),
    headers: { accept: "application/json, text/event-stream", "mcp-session-id": id },
  });
  t.after(() => c.close());
  const hello = await c.nextMessage();
  assert.equal(hello.params.data, "hello");
  const del = await fetch(mcp, { method: "DELETE", headers: { "mcp-session-id": id } });
  assert.equal(del.status, 200);
  await c.ended;
  const resumed = await fetch(mcp, { headers: { accept: "text/event-stream", "mcp-session-id": id, "last-event-id": "p0.1" } });
  assert.equal(resumed.status, 404);
  await resumed.body?.cancel();
  while (reasons.length === 0) await new Promise((r) => setImmediate(r));
  assert.deepEqual(reasons, ["The session ended"]);
});

test("an answer that cannot be written as JSON is a 500, and the server keeps serving", async (t) => {
  const { server, mcp } = await start(t);
  server.tool(function unsendable() {
    return { content: [{ type: "text", text: "n" }], structuredContent: { n: 1n } };
  });
  const id = await initialize(mcp);
  const h = { "mcp-session-id": id };
  for (const headers of [{}, h]) {
    const reply = await post(mcp, rpc(1, "tools/call", { name: "unsendable", arguments: {} }), headers);
    assert.equal(reply.status, 500);
  }
  const ping = await post(mcp, rpc(2, "ping"), h);
  assert.equal(ping.status, 200);
  assert.deepEqual(ping.json, { jsonrpc: "2.0", id: 2, result: {} });
});
