// Two replicas' ToolSessions on one store, each remembering reads as the gateway does: a
// replica's old copy of a tool session never undoes what another replica did since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGatewayConfig } from "../../lib/gateway/config.ts";
import type { Backend } from "../../lib/gateway/launch.ts";
import type { RecordStore } from "../../lib/gateway/contracts.ts";
import { CachingRecordStore } from "../../lib/gateway/store/caching-record-store.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";
import { MemoryRecordStore } from "../../lib/gateway/store/memory-record-store.ts";
import { isSteadyRoute, sessionKey, ToolSessions, type ToolSessionRecord } from "../../lib/gateway/tool-sessions.ts";

const KEY = sessionKey("ada", "t", "default");

function replicas(t: { after(fn: () => unknown): void }) {
  const shared = new MemoryRecordStore();
  const config = parseGatewayConfig({ tools: { t: { revisions: { default: { command: ["unused"] } } } } }, "/");
  let started = 0;
  const stops: Array<() => void> = [];
  const launch = async (): Promise<Backend> => {
    let stop!: () => void;
    const exited = new Promise<void>((resolve) => (stop = resolve));
    stops.push(stop);
    return { url: `http://127.0.0.1:${9000 + started++}/`, exited, stop: async () => stop() };
  };
  const replica = (): ToolSessions => {
    const store = new CachingRecordStore(shared, { ttlMs: 60_000, keep: isSteadyRoute });
    const sessions = new ToolSessions({ store, readFresh: (c, id) => store.fresh(c, id), config, publicUrl: () => "http://gw", launch, onEvent: () => {} });
    t.after(() => sessions.close());
    return sessions;
  };
  return { shared, a: replica(), b: replica() };
}

test("a replica's remembered session, gone and replaced elsewhere, is not deleted over the new one", async (t) => {
  const { shared, a, b } = replicas(t);
  const first = await a.acquire("ada", "t", "default");
  assert.equal((await b.acquire("ada", "t", "default")).instance, first.instance); // b remembers it
  // Replica a's session was replaced (a crash and a new start): the data dir names another instance.
  const replaced: ToolSessionRecord = { ...first, instance: "f".repeat(32), url: "http://127.0.0.1:9999/" };
  await shared.put("tool-sessions", KEY, replaced);
  assert.equal((await b.acquire("ada", "t", "default")).instance, first.instance, "b still trusts its copy");
  await b.unreachable(first, "ECONNREFUSED"); // b's request to the old address failed
  assert.equal((await shared.get<ToolSessionRecord>("tool-sessions", KEY))?.instance, replaced.instance, "the new record stays");
  assert.equal((await b.acquire("ada", "t", "default", true)).instance, replaced.instance, "a fresh read sees it");
  assert.equal((await b.acquire("ada", "t", "default")).instance, replaced.instance, "and b trusts that from now on");
});

test("forgetting a session that is really gone: the record goes and the next acquire starts one", async (t) => {
  const { shared, a, b } = replicas(t);
  const first = await a.acquire("ada", "t", "default");
  await b.acquire("ada", "t", "default");
  await b.unreachable(first, "ECONNREFUSED");
  assert.equal(await shared.get("tool-sessions", KEY), undefined);
  const next = await b.acquire("ada", "t", "default");
  assert.notEqual(next.instance, first.instance);
});

/** Two replicas, each on its own store object over `shared` (one process's view of the data dir each), with twelve tools. */
function cappedReplicas(t: { after(fn: () => unknown): void }, stores: [RecordStore, RecordStore]) {
  const tools = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, { revisions: { default: { command: ["unused"] } } }]));
  const config = parseGatewayConfig({ tools, limits: { sessionsPerUser: 3, sessionsTotal: 100 } }, "/");
  let launched = 0;
  const launch = async (): Promise<Backend> => {
    launched++;
    let stop!: () => void;
    const exited = new Promise<void>((resolve) => (stop = resolve));
    return { url: `http://127.0.0.1:${9000 + launched}/`, exited, stop: async () => stop() };
  };
  const [a, b] = stores.map((inner) => {
    const store = new CachingRecordStore(inner, { ttlMs: 60_000, keep: isSteadyRoute });
    const sessions = new ToolSessions({ store, readFresh: (c, id) => store.fresh(c, id), config, publicUrl: () => "http://gw", launch, onEvent: () => {} });
    t.after(() => sessions.close());
    return sessions;
  }) as [ToolSessions, ToolSessions];
  return { a, b, launched: () => launched };
}

async function raceTwelve(a: ToolSessions, b: ToolSessions): Promise<{ started: ToolSessionRecord[]; refused: string[] }> {
  const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).acquire("ada", `t${i}`, "default")));
  const started = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const refused = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as { code: string }).code] : []));
  return { started, refused };
}

test("sessionsPerUser can't be raced: twelve first requests at once over two replicas start three sessions", async (t) => {
  const shared = new MemoryRecordStore();
  const { a, b, launched } = cappedReplicas(t, [shared, shared]);
  const { started, refused } = await raceTwelve(a, b);
  assert.equal(started.length, 3);
  assert.equal(launched(), 3, "no process was even started past the cap");
  assert.deepEqual(new Set(refused), new Set(["too_many_user_sessions"]));
  // A session that ends frees its place for the next one.
  await a.unreachable(started[0]!, "ECONNREFUSED");
  const tool = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11"].find((x) => !started.some((s) => s.tool === x))!;
  assert.equal((await b.acquire("ada", tool, "default")).tool, tool);
  await assert.rejects(a.acquire("ada", started[0]!.tool, "default"), { code: "too_many_user_sessions" });
  assert.equal((await a.acquire("bob", "t0", "default")).user, "bob", "another person has places of their own");
});

test("sessionsPerUser holds for two gateway processes' stores on one data dir", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-caps-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { a, b, launched } = cappedReplicas(t, [new FileRecordStore(dir), new FileRecordStore(dir)]);
  const { started } = await raceTwelve(a, b);
  assert.equal(started.length, 3);
  assert.equal(launched(), 3);
});
