// Session lifetime: ids, lookup, idle expiry and the cap on an
// injected clock, and over HTTP: minting, the three ways to name a session, DELETE, 404,
// capabilities kept per session, and 1,000 abandoned sessions leaving nothing behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionTable } from "../../lib/session/session-table.ts";
import type { SessionStream } from "../../lib/session/session.ts";
import { McpServer } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

const fakeStream = (): SessionStream & { closed: boolean } => {
  const s = { kind: "mcp" as const, closed: false, send: () => true, close: () => void (s.closed = true) };
  return s;
};

test("ids: at least 128 random bits of visible ASCII, never repeated", (t) => {
  const table = new SessionTable();
  t.after(() => table.close());
  const ids = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const id = table.create()!.id;
    assert.match(id, /^[\x21-\x7e]{22,}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 200);
});

test("ids never share random bytes with one another, across refills of the random pool", (t) => {
  const table = new SessionTable({ maxSessions: 1000 });
  t.after(() => table.close());
  // Every 8-byte window of every id: an id cut from bytes another id also used would repeat one.
  const seen = new Map<string, number>();
  for (let i = 0; i < 400; i++) {
    const bytes = Buffer.from(table.create()!.id, "base64url");
    assert.ok(bytes.length >= 16);
    for (let at = 0; at + 8 <= bytes.length; at++) {
      const window = bytes.subarray(at, at + 8).toString("hex");
      const owner = seen.get(window);
      assert.ok(owner === undefined || owner === i, `ids ${owner} and ${i} share bytes`);
      seen.set(window, i);
    }
  }
});

test("idle expiry counts from the last use on the table's clock; an open stream keeps a session", (t) => {
  const c = clock();
  const table = new SessionTable({ idleTimeoutMs: 1000, now: c.now });
  t.after(() => table.close());
  const idle = table.create()!;
  const used = table.create()!;
  const streaming = table.create()!;
  const stream = fakeStream();
  streaming.streams.add(stream);
  let ended = 0;
  idle.onEnd(() => ended++);
  c.advance(600);
  assert.equal(table.get(used.id), used, "a lookup counts as use");
  c.advance(400);
  assert.equal(table.sweep(), 1);
  assert.equal(ended, 1);
  assert.equal(table.get(idle.id), undefined);
  c.advance(600);
  used.touch();
  c.advance(999);
  assert.equal(table.sweep(), 0);
  c.advance(1);
  assert.equal(table.sweep(), 1);
  c.advance(10_000);
  assert.equal(table.sweep(), 0, "the streaming session stays");
  streaming.streams.delete(stream);
  assert.equal(table.sweep(), 1);
  assert.equal(table.size, 0);
});

test("the cap: expired sessions make room first, then the longest idle one; full of streams means no room", (t) => {
  const c = clock();
  const table = new SessionTable({ idleTimeoutMs: 1000, maxSessions: 3, now: c.now });
  t.after(() => table.close());
  const [a, b, d] = [table.create()!, table.create()!, table.create()!];
  c.advance(10);
  table.get(a.id);
  const e = table.create()!;
  assert.ok(e);
  assert.equal(table.get(b.id), undefined, "b was idle longest");
  assert.equal(table.size, 3);
  for (const s of [a, d, e]) s.streams.add(fakeStream());
  assert.equal(table.create(), null);
  c.advance(5000);
  assert.equal(table.create(), null, "sessions with open streams never expire");
  const stream = [...a.streams][0]!;
  a.streams.delete(stream);
  assert.ok(table.create(), "an expired session makes room");
  assert.equal(table.delete("nope"), false);
  const streams = [...d.streams] as ReturnType<typeof fakeStream>[];
  assert.equal(table.delete(d.id), true);
  assert.equal(streams[0]!.closed, true, "ending a session closes its streams");
  table.close();
  assert.equal(table.size, 0);
});

const INIT = (capabilities: Record<string, unknown>) =>
  rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "c", version: "2" } });

test("over HTTP: minted by initialize, GET /mcp and GET /sse; named by header, session_id or sessionId; DELETE; 404", async (t) => {
  const server = new McpServer("sessions");
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const mcp = `${running.url}mcp`;
  const init = await post(mcp, INIT({ elicitation: { form: {} }, roots: { listChanged: true } }));
  const id = init.headers.get("mcp-session-id")!;
  const session = server.sessions.get(id)!;
  assert.deepEqual(session.clientCapabilities, { elicitation: { form: {} }, roots: { listChanged: true } });
  assert.deepEqual([session.protocolVersion, session.clientInfo?.name], ["2025-06-18", "c"]);
  for (const [url, headers] of [
    [mcp, { "mcp-session-id": id }],
    [`${mcp}?session_id=${id}`, {}],
    [`${mcp}?sessionId=${id}`, {}],
  ] as const) {
    const reply = await post(url, rpc(2, "ping"), headers);
    assert.deepEqual([reply.status, reply.headers.get("mcp-session-id")], [200, id], url);
  }
  const get = await openSse(mcp);
  t.after(() => get.close());
  const minted = get.headers["mcp-session-id"] as string;
  assert.ok(minted && minted !== id);
  const sse = await openSse(`${running.url}sse`);
  t.after(() => sse.close());
  assert.ok(server.sessions.get(sse.headers["mcp-session-id"] as string));
  assert.equal(server.sessions.size, 3);

  const del = await fetch(mcp, { method: "DELETE", headers: { "mcp-session-id": minted } });
  assert.deepEqual([del.status, await del.json()], [200, { status: "terminated" }]);
  await get.ended;
  for (const [method, url, headers] of [
    ["POST", mcp, { "mcp-session-id": minted }],
    ["GET", mcp, { "mcp-session-id": minted }],
    ["DELETE", mcp, { "mcp-session-id": minted }],
    ["POST", `${mcp}?session_id=unknown`, {}],
    ["GET", `${running.url}sse?session_id=unknown`, {}],
  ] as const) {
    const res = await fetch(url, {
      method,
      headers: { ...headers, accept: "application/json, text/event-stream" },
      body: method === "POST" ? JSON.stringify(rpc(3, "ping")) : undefined,
    });
    assert.equal(res.status, 404, `${method} ${url}`);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32001);
  }
  const noName = await fetch(mcp, { method: "DELETE" });
  assert.equal(noName.status, 400);
  await noName.body?.cancel();
});

test("over HTTP: a table full of live streams answers 503 instead of growing", async (t) => {
  const server = new McpServer("capped", { sessions: { maxSessions: 2 } });
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const streams = [await openSse(`${running.url}mcp`), await openSse(`${running.url}sse`)];
  t.after(() => streams.forEach((s) => s.close()));
  const full = await post(`${running.url}mcp`, INIT({}));
  assert.equal(full.status, 503);
  assert.equal(full.headers.get("retry-after"), "5");
  const res = await fetch(`${running.url}mcp`, { headers: { accept: "text/event-stream" } });
  assert.equal(res.status, 503);
  await res.body?.cancel();
  assert.equal((await post(`${running.url}mcp`, rpc(1, "ping"))).status, 200, "session-less calls still work");
});

test("1,000 sessions opened and abandoned: once they expire the table is empty again and each session let go of its streams", async (t) => {
  const c = clock();
  const server = new McpServer("churn", { sessions: { idleTimeoutMs: 60_000, now: c.now } });
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const mcp = `${running.url}mcp`;
  const opened: string[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const replies = await Promise.all(Array.from({ length: 95 }, () => post(mcp, INIT({ elicitation: {} }))));
    for (const r of replies) opened.push(r.headers.get("mcp-session-id")!);
  }
  // Fifty more open a GET /mcp stream and then vanish without a DELETE.
  for (let i = 0; i < 50; i++) {
    const s = await openSse(mcp);
    opened.push(s.headers["mcp-session-id"] as string);
    await s.until("endpoint");
    s.close();
    await s.ended;
  }
  assert.equal(new Set(opened).size, 1000);
  while ([...server.sessions.values()].some((s) => s.streams.size > 0)) await new Promise((r) => setImmediate(r));
  assert.equal(server.sessions.size, 1000);
  const held = [...server.sessions.values()];
  c.advance(59_999);
  assert.equal(server.sessions.sweep(), 0, "not idle long enough yet");
  c.advance(1);
  assert.equal(server.sessions.sweep(), 1000);
  assert.equal(server.sessions.size, 0);
  assert.ok(held.every((s) => s.streams.size === 0));
  const fresh = await post(mcp, rpc(1, "ping"), { "mcp-session-id": opened[0]! });
  assert.equal(fresh.status, 404, "an expired session is gone for good");
  assert.equal((await post(mcp, rpc(2, "ping"))).status, 200, "and the server still serves");
});
