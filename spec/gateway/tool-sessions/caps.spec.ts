// The tool session caps when first requests race: over two replicas on one store, and over
// two store objects on one data dir as two gateway processes hold them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import type { RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import type { Backend } from "../../../lib/gateway/backends/index.ts";
import type { GatewayError } from "../../../lib/gateway/contracts/respond.ts";
import { CachingRecordStore } from "../../../lib/gateway/store/caching-record-store.ts";
import { ToolSessionCaps } from "../../../lib/gateway/tool-sessions/caps.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { ToolSessions } from "../../../lib/gateway/tool-sessions/tool-sessions.ts";
import { isSteadyRoute, type ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";

/** Two replicas, each on its own store object over `shared` (one process's view of the data dir each), with twelve tools. */
function cappedReplicas(t: { after(fn: () => unknown): void }, stores: [RecordStore, RecordStore], limits = { sessionsPerUser: 3, sessionsTotal: 100 }) {
  const tools = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, { revisions: { default: { command: ["unused"] } } }]));
  const config = parseGatewayConfig({ tools, limits }, "/");
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
  const refused = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as GatewayError).error] : []));
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
  // Ended: its process is gone, as the replica that doesn't own it learns from a refused connection.
  await (started[0]!.owner === a.owner ? b : a).unreachable(started[0]!, "ECONNREFUSED");
  const tool = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11"].find((x) => !started.some((s) => s.tool === x))!;
  assert.equal((await b.acquire("ada", tool, "default")).tool, tool);
  await assert.rejects(a.acquire("ada", started[0]!.tool, "default"), { error: "too_many_user_sessions" });
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

test("sessionsTotal can't be raced either: twelve people's first requests at once start three sessions", async (t) => {
  const shared = new MemoryRecordStore();
  const { a, b, launched } = cappedReplicas(t, [shared, shared], { sessionsPerUser: 3, sessionsTotal: 3 });
  const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).acquire(`user${i}`, "t0", "default")));
  const started = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  assert.equal(started.length, 3);
  assert.equal(launched(), 3);
  assert.ok(results.every((r) => r.status === "fulfilled" || (r.reason as GatewayError).error === "too_many_sessions"));
  await (started[0]!.owner === a.owner ? b : a).unreachable(started[0]!, "ECONNREFUSED");
  assert.equal((await a.acquire("late", "t1", "default")).user, "late", "an ended session's place is free again");
});

test("a cap that filled with ended sessions' places after it was read is cleaned and tried again, not refused", async () => {
  const store = new MemoryRecordStore();
  // Two sessions took the person's two places and have ended since (no session record is live).
  await store.put("tool-session-places", "user\nann", { x: "ann\nt1\ndefault", y: "ann\nt2\ndefault" });
  await store.put("tool-session-places", "all", { x: "ann\nt1\ndefault", y: "ann\nt2\ndefault" });
  // The first read of the cap saw it before they claimed (catalog fills start and stop that fast).
  let reads = 0;
  const caps = new ToolSessionCaps({
    store,
    limits: { sessionsTotal: 10, sessionsPerUser: 2 },
    readFresh: async <T>(collection: string, id: string) => (id === "user\nann" && reads++ === 0 ? undefined : store.get<T>(collection, id)),
    liveInstances: async () => new Set(["z"]),
  });
  assert.equal(await caps.claim("ann", "ann\nt3\ndefault", "z"), undefined);
  assert.deepEqual(await store.get("tool-session-places", "user\nann"), { z: "ann\nt3\ndefault" });
  // Really full (both places live) is still refused.
  const full = new ToolSessionCaps({
    store,
    limits: { sessionsTotal: 10, sessionsPerUser: 1 },
    readFresh: (c, i) => store.get(c, i),
    liveInstances: async () => new Set(["z", "w"]),
  });
  assert.equal((await full.claim("ann", "ann\nt4\ndefault", "w"))?.error, "too_many_user_sessions");
});
