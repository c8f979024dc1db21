// Two replicas' ToolSessions on one store, each remembering reads as the gateway does: a
// replica's old copy of a tool session never undoes what another replica did since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import type { Backend } from "../../../lib/gateway/backends/index.ts";
import { CachingRecordStore } from "../../../lib/gateway/store/caching-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { ToolSessions } from "../../../lib/gateway/tool-sessions/tool-sessions.ts";
import { isSteadyRoute, toolSessionKey, type ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";

const KEY = toolSessionKey("ada", "t", "default");

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

test("acquireNow answers a running tool session it remembers without a promise, and reads again once the copy expired", async (t) => {
  let now = 1_000_000;
  const store = new CachingRecordStore(new MemoryRecordStore(), { ttlMs: 1000, keep: isSteadyRoute, now: () => now });
  const config = parseGatewayConfig({ tools: { t: { revisions: { default: { command: ["unused"] } } } } }, "/");
  const launch = async (): Promise<Backend> => ({ url: "http://127.0.0.1:9000/", exited: new Promise<void>(() => {}), stop: async () => {} });
  const copyOf = (collection: string, id: string) => store.copyOf(collection, id);
  const sessions = new ToolSessions({
    store,
    readFresh: (c, id) => store.fresh(c, id),
    copyOf,
    config,
    publicUrl: () => "http://gw",
    launch,
    onEvent: () => {},
  });
  t.after(() => sessions.close());
  const starting = sessions.acquireNow("ada", "t", "default");
  assert.ok(starting instanceof Promise, "nothing runs yet: it is started");
  const running = await starting;
  await sessions.acquire("ada", "t", "default"); // read back once, and so remembered
  const known = sessions.acquireNow("ada", "t", "default");
  assert.ok(!(known instanceof Promise), "running and remembered: answered at once");
  assert.equal(known.instance, running.instance);
  now += 1001;
  const reread = sessions.acquireNow("ada", "t", "default");
  assert.ok(reread instanceof Promise, "the remembered copy expired: read again");
  assert.equal((await reread).instance, running.instance);
});

test("a replica that stops ends its command tool sessions, and leaves a url revision's to the replicas still serving it", async (t) => {
  const shared = new MemoryRecordStore();
  const config = parseGatewayConfig({ tools: { t: { revisions: { default: { command: ["unused"] }, remote: { url: "http://127.0.0.1:9/" } } } } }, "/");
  const launch = async (): Promise<Backend> => ({ url: "http://127.0.0.1:9000/", exited: new Promise<void>(() => {}), stop: async () => {} });
  const replica = (): ToolSessions => {
    const sessions = new ToolSessions({ store: shared, config, publicUrl: () => "http://gw", launch, onEvent: () => {} });
    t.after(() => sessions.close());
    return sessions;
  };
  const [a, b] = [replica(), replica()];
  const remote = await a.acquire("ada", "t", "remote");
  const command = await a.acquire("ada", "t", "default");
  await a.close();
  assert.equal((await b.acquire("ada", "t", "remote")).instance, remote.instance, "the url session goes on through b");
  assert.equal(await shared.get("tool-sessions", toolSessionKey("ada", "t", "default")), undefined, "the command session ended with a");
  assert.notEqual((await b.acquire("ada", "t", "default")).instance, command.instance);
});

test("a url revision's session left by a replica that stopped is ended by another once idle", async (t) => {
  const shared = new MemoryRecordStore();
  const config = parseGatewayConfig({ tools: { t: { revisions: { default: { url: "http://127.0.0.1:9/" }, other: { url: "http://127.0.0.1:9/" } } } } }, "/");
  const replica = (): ToolSessions => {
    const sessions = new ToolSessions({ store: shared, config, publicUrl: () => "http://gw", onEvent: () => {} });
    t.after(() => sessions.close());
    return sessions;
  };
  const [a, b] = [replica(), replica()];
  const left = await a.acquire("ada", "t", "default");
  await a.close();
  const own = await b.acquire("ada", "t", "other");
  const later = Date.now() + config.limits.idleTimeoutMs - 1000;
  await b.sweepIdle(later);
  assert.equal((await shared.get<ToolSessionRecord>("tool-sessions", toolSessionKey("ada", "t", "default")))?.instance, left.instance, "not idle yet: kept");
  await b.sweepIdle(later + 2000);
  assert.equal(await shared.get("tool-sessions", toolSessionKey("ada", "t", "default")), undefined, "idle: ended by b");
  assert.equal(await shared.get("tool-sessions", toolSessionKey("ada", "t", "other")), undefined, "b's own, idle too, stopped as before");
  assert.notEqual((await b.acquire("ada", "t", "other")).instance, own.instance);
});

test("a person stops their tool session from any replica: the owner stops its process at its next sweep; another's is refused", async (t) => {
  const { shared, a, b } = replicas(t);
  const first = await a.acquire("ada", "t", "default");
  assert.deepEqual(
    (await b.of("ada")).map((s) => s.instance),
    [first.instance],
    "every replica lists it",
  );
  assert.deepEqual(await b.of("bob"), []);
  assert.equal(await b.endOf("bob", first.instance), false, "not bob's");
  assert.equal(await b.endOf("ada", "not-an-instance"), false);
  assert.equal(a.liveOwned, 1);
  assert.equal(await b.endOf("ada", first.instance), true, "ended from the replica that does not own it");
  assert.equal(await shared.get("tool-sessions", KEY), undefined);
  await a.sweepIdle();
  assert.equal(a.liveOwned, 0, "the owner stopped it");
});
