// Two session tables on one record store stand for two replicas in one process: what one
// starts, the other uses; what one ends, the other forgets; idle is decided from the store.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Agent } from "node:http";
import { test } from "node:test";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { SessionSealer } from "../../../lib/gateway/relay/session-seal.ts";
import { ConnectorSessions, type Link } from "../../../lib/gateway/hub-connector/sessions.ts";
import { CONNECTOR_SESSIONS } from "../../../lib/gateway/hub-connector/session-records.ts";
import { SESSIONS, toolSessionKey, type ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";
import { upstreamStub } from "../upstream-stub.ts";

async function replicas(t: { after(fn: () => unknown): void }, idleMs = 60_000, max?: number) {
  const deleted: string[] = [];
  const stub = await upstreamStub(t, (_msg, req, res) => {
    if (req.method === "DELETE") deleted.push(String(req.headers["mcp-session-id"]));
    res.writeHead(200).end();
  });
  const agent = new Agent();
  t.after(() => agent.destroy());
  const store = new MemoryRecordStore();
  const sealer = new SessionSealer(randomBytes(32));
  const ended: string[] = [];
  const table = () =>
    new ConnectorSessions({
      sealer,
      store,
      idleMs,
      shared: { ended: (_instance, session) => void ended.push(session) },
      upstream: (rec) => ({ url: rec.url!, agent }),
      ...(max ? { max } : {}),
    });
  const [a, b] = [table(), table()];
  t.after(() => (a.close(), b.close()));
  const rec: ToolSessionRecord = { state: "ready", instance: "i1", user: "", tool: "t", revision: "r", owner: "a", since: 0, url: stub.url };
  await store.put(SESSIONS, toolSessionKey("", "t", "r"), rec);
  const link = (session: string): Link => ({ tool: "t", rec, up: { url: stub.url, agent }, session });
  return { a, b, store, deleted, ended, link };
}

/** Resolves once the store has the link, as the writing table does it in the background. */
async function linked(store: MemoryRecordStore, key: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const rec = await store.get<{ links: Record<string, unknown> }>(CONNECTOR_SESSIONS, key);
    if (rec && Object.keys(rec.links).length > 0) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail("the link was not written");
}

test("a link started on one replica is used on the other, and an end on either ends it everywhere", async (t) => {
  const { a, b, store, deleted, ended, link } = await replicas(t);
  const s = await a.create("ada", { clientInfo: { name: "c", version: "1" } }, "2025-11-25");
  s.links.set("t", Promise.resolve(link("up-1")));
  await linked(store, s.key);
  const onB = await b.open(s.id, "ada");
  assert.equal(onB.initParams.clientInfo && (onB.initParams.clientInfo as { name: string }).name, "c");
  assert.equal((await onB.links.get("t"))?.session, "up-1");
  // Reopened on A after B restarted the link: A takes B's.
  onB.links.set("t", Promise.resolve(link("up-2")));
  await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 100 && (await store.get<{ links: { t: { session: string } } }>(CONNECTOR_SESSIONS, s.key))?.links.t.session !== "up-2"; i++) {
    await new Promise((r) => setImmediate(r));
  }
  assert.equal((await (await a.open(s.id, "ada")).links.get("t"))?.session, "up-2");
  // Another person naming it, or a forged id: not found.
  await assert.rejects(b.open(s.id, "bob"), /No such session/);
  await assert.rejects(b.open("g1.forged", "ada"), /No such session/);

  await b.delete(onB);
  assert.deepEqual(deleted, ["up-2"]);
  assert.deepEqual(ended, ["up-2"], "its place on the shared revision given back");
  // A still holds it in memory: its next use finds the record gone.
  await assert.rejects(a.open(s.id, "ada"), /No such session/);
  assert.ok(s.ended.signal.aborted, "its streams on A end");
});

test("ended elsewhere: a replica's sweep drops what it holds, and a link started meanwhile is ended", async (t) => {
  const { a, b, store, deleted, link } = await replicas(t);
  const s = await a.create("ada", {}, "2025-11-25");
  const onB = await b.open(s.id, "ada");
  await b.delete(onB);
  await a.sweepIdle();
  assert.ok(s.ended.signal.aborted);
  assert.equal(a.size, 0);
  // A link that finished opening after the end: nothing would end it later, so it ends now.
  s.links.set("t", Promise.resolve(link("up-late")));
  for (let i = 0; i < 200 && !deleted.includes("up-late"); i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(deleted, ["up-late"]);
  // Kept before it is handed out (as the relay does): the request that opened it hears "not found".
  await assert.rejects(s.keep("t", link("up-kept")), /No such session/);
  assert.deepEqual(deleted, ["up-late", "up-kept"]);
  assert.equal(await store.get(CONNECTOR_SESSIONS, s.key), undefined, "nothing written for a session that ended");
});

test("idle is decided from the store: a session used on another replica, or listening there, is not idle", async (t) => {
  const { a, b, store, deleted, link } = await replicas(t, 1000);
  const s = await a.create("ada", {}, "2025-11-25");
  s.links.set("t", Promise.resolve(link("up-idle")));
  await linked(store, s.key);
  const listening = await b.create("ada", {}, "2025-11-25");
  listening.streams.add(() => undefined);
  const now = Date.now() + 5000;
  // B writes the use of what it holds first; A's sweep then sees only `s` idle.
  await b.sweepIdle(now);
  await a.sweepIdle(now);
  assert.ok(s.ended.signal.aborted);
  assert.deepEqual(deleted, ["up-idle"]);
  assert.ok(await store.get(CONNECTOR_SESSIONS, listening.key), "a session with a stream open on B is not idle");
});

test("the store holds at most `max` sessions: the oldest are forgotten", async (t) => {
  const { a, store } = await replicas(t, 60_000, 2);
  const first = await a.create("ada", {}, "2025-11-25");
  await a.create("bob", {}, "2025-11-25");
  await a.create("cy", {}, "2025-11-25");
  assert.equal(await store.get(CONNECTOR_SESSIONS, first.key), undefined);
  assert.equal((await store.list(CONNECTOR_SESSIONS)).length, 2);
});

test("a GET stream held on one replica hears a tool the client started through another, at that replica's next sweep", async (t) => {
  const { a, b, store, link } = await replicas(t);
  const s = await a.create("ada", {}, "2025-11-25");
  const onB = await b.open(s.id, "ada");
  const heard: Array<string | undefined> = [];
  onB.streams.add((l) => void heard.push(l.session));
  s.links.set("t", Promise.resolve(link("up-a")));
  await linked(store, s.key);
  await b.sweepIdle();
  assert.deepEqual(heard, ["up-a"]);
});
