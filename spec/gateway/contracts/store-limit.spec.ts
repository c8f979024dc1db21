// Rate limits counted in a shared store: replicas on one store share one budget per key,
// while the store is unreachable each replica's own limit decides, and a flood is refused
// by the replica's own bucket before it reaches the store.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import type { RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { resolveOptions } from "../../../lib/gateway/oauth/options.ts";
import { LIMITS, oauthLimit } from "../../../lib/gateway/oauth/rate-limit.ts";
import { Sweeper } from "../../../lib/gateway/oauth/sweeper.ts";
import { TokenBucketLimiter } from "../../../lib/gateway/edge/rate-limit.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { SharedLimit } from "../../../lib/gateway/contracts/store-limit.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { PostgresRecordStore } from "../../../lib/gateway/store/postgres-record-store.ts";
import { StoreUnavailableError } from "../../../lib/gateway/contracts/store-errors.ts";
import { POSTGRES_SKIP, postgresCluster } from "../../helpers/postgres.ts";
import { fake, post, ROOT } from "../helpers.ts";

test("two replicas' per-person buckets in one Postgres database are one bucket", { skip: POSTGRES_SKIP }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const stores = await Promise.all([0, 1].map(() => PostgresRecordStore.open({ url, password: cluster.password })));
  t.after(() => Promise.all(stores.map((s) => s.close())));
  const replicas = stores.map((s) => new TokenBucketLimiter(0.001, 3).sharedIn(s));
  const waits = await Promise.all([0, 1, 0, 1].map((r) => replicas[r]!.hit("ada")));
  assert.deepEqual(waits.filter((w) => w > 0).length, 1);
  assert.equal(await replicas[0]!.hit("grace"), 0);

  const now = () => 1_000_000;
  const windows = stores.map((store) => oauthLimit({ store, now, sharedLimits: true }, LIMITS.login, 2, 60_000));
  assert.equal(await windows[0]!.hit("10.0.0.1"), 0);
  assert.equal(await windows[1]!.hit("10.0.0.1"), 0);
  assert.equal(await windows[0]!.hit("10.0.0.1"), 60);
  assert.equal(await windows[1]!.hit("10.0.0.2"), 0);
});

test("while the store is unreachable the replica's own limit decides; other store errors propagate", async () => {
  class Down extends MemoryRecordStore {
    failure: Error = new StoreUnavailableError();
    override async update<T>(): Promise<T | undefined> {
      throw this.failure;
    }
  }
  const store = new Down();
  const limit = new TokenBucketLimiter(0.001, 2).sharedIn(store);
  assert.deepEqual([await limit.hit("u"), await limit.hit("u"), await limit.hit("u")], [0, 0, 1000]);
  const window = oauthLimit({ store, now: () => 0, sharedLimits: true }, LIMITS.register, 1, 60_000);
  assert.deepEqual([await window.hit("ip"), await window.hit("ip")], [0, 60]);
  store.failure = new Error("a bug");
  await assert.rejects(async () => limit.hit("v"), /a bug/);
  // Without sharing, the limit is this process's alone and never touches the store.
  assert.equal(oauthLimit({ store, now: () => 0, sharedLimits: false }, LIMITS.register, 1, 60_000).hit("ip"), 0);
});

test("two gateways with sharedLimits on one store answer 429 once the shared burst is spent", async (t) => {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("alice", "pw", []);
  const { token } = (await new ApiTokens(store, accounts).create("alice"))!;
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } }, limits: { rateBurst: 2, ratePerSecond: 0.001 } }, ROOT);
  const gateways = await Promise.all([0, 1].map(() => startGateway({ config, store, sharedLimits: true })));
  t.after(() => Promise.all(gateways.map((g) => g.close())));
  const statuses = [];
  for (const g of [0, 1, 0]) statuses.push((await post(`${gateways[g]!.url}api/mcp/fake/tools/add`, token, "{}")).status);
  assert.deepEqual(statuses, [200, 200, 429]);
});

test("the OAuth sweep removes shared windows an hour old and keeps current ones", async () => {
  const store = new MemoryRecordStore();
  let now = 10_000_000;
  const config = resolveOptions({
    publicUrl: "http://127.0.0.1:1",
    store,
    accounts: { verifyPassword: async () => null, groupsOf: async () => null },
    now: () => now,
    sharedLimits: true,
  });
  const login = oauthLimit(config, LIMITS.login, 10, 60_000);
  await login.hit("10.0.0.1");
  now += 3600_000;
  await login.hit("10.0.0.2");
  await new Sweeper(config).sweep();
  assert.deepEqual(
    (await store.list(LIMITS.login)).map((r) => r.id),
    ["10.0.0.2"],
  );
});

/** The real store, counting the limit's writes: how many, for whom, and how many at once. */
class CountingStore implements RecordStore {
  readonly writes = new Map<string, number>();
  inFlight = 0;
  mostInFlight = 0;
  constructor(private readonly inner: RecordStore) {}
  get<T>(collection: string, id: string): Promise<T | undefined> {
    return this.inner.get<T>(collection, id);
  }
  put(collection: string, id: string, value: unknown): Promise<void> {
    return this.inner.put(collection, id, value);
  }
  create(collection: string, id: string, value: unknown): Promise<boolean> {
    return this.inner.create(collection, id, value);
  }
  delete(collection: string, id: string): Promise<void> {
    return this.inner.delete(collection, id);
  }
  list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    return this.inner.list<T>(collection);
  }
  secret(name: string): Promise<Buffer> {
    return this.inner.secret(name);
  }
  async update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    if (collection !== "rate-users") return this.inner.update(collection, id, change);
    this.writes.set(id, (this.writes.get(id) ?? 0) + 1);
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
    try {
      return await this.inner.update(collection, id, change);
    } finally {
      this.inFlight--;
    }
  }
}

test("one person's flood on a Postgres store: what their own bucket refuses never reaches the database, and the limit's writes hold two connections at most", {
  skip: POSTGRES_SKIP,
  timeout: 60_000,
}, async (t) => {
  const cluster = await postgresCluster();
  const pgStore = await PostgresRecordStore.open({ url: await cluster.database(), password: cluster.password });
  const store = new CountingStore(pgStore);
  const accounts = new StoreAccountDirectory(store);
  const tokens = new ApiTokens(store, accounts);
  await accounts.add("mallory", "pw", []);
  await accounts.add("alice", "pw", []);
  const mallory = (await tokens.create("mallory"))!.token;
  const alice = (await tokens.create("alice"))!.token;
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } }, limits: { rateBurst: 5, ratePerSecond: 0.001 } }, ROOT);
  const gw = await startGateway({ config, store, sharedLimits: true });
  t.after(async () => {
    await gw.close();
    await pgStore.close();
  });
  const call = async (token: string): Promise<number> => {
    const res = await post(`${gw.url}api/mcp/fake/tools/add`, token, "{}");
    await res.arrayBuffer();
    return res.status;
  };

  const flood = Array.from({ length: 900 }, () => call(mallory));
  const theirs = [call(alice), call(alice), call(alice)];
  const statuses = await Promise.all(flood);
  assert.deepEqual(await Promise.all(theirs), [200, 200, 200]);
  assert.equal(statuses.filter((s) => s === 200).length, 5);
  assert.equal(statuses.filter((s) => s === 429).length, 895);
  // The 895 refusals wrote nothing: mallory's record saw at most the five requests let through, in batches.
  assert.ok(store.writes.get("mallory")! <= 5, `mallory's limit record was written ${store.writes.get("mallory")} times`);
  assert.ok(store.writes.get("alice")! <= 3);
  assert.ok(store.mostInFlight <= 2, `${store.mostInFlight} limit writes at once`);
});

test("requests that come while a person's record is written go in one later write, spaced from the last; writes for all keys share the lanes", async () => {
  class Gated extends MemoryRecordStore {
    readonly writes: string[] = [];
    gate: Promise<void> = Promise.resolve();
    override async update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
      this.writes.push(id);
      await this.gate;
      return super.update(collection, id, change);
    }
  }
  const store = new Gated();
  let open = (): void => {};
  const shut = (): void => void (store.gate = new Promise((resolve) => (open = resolve)));
  let clock = 0;
  let refuse = 0;
  // Three per key, then a wait of 7 s; the replica's own limit refuses when `refuse` says so.
  const step = (n: number | undefined) => ({ state: (n ?? 0) + 1, wait: (n ?? 0) + 1 > 3 ? 7 : 0 });
  const limit = new SharedLimit<number>(
    store,
    "rate-users",
    step,
    () => refuse,
    () => clock,
    1,
  );

  shut();
  const first = limit.hit("ada");
  const more = [0, 1, 2, 3, 4].map(() => limit.hit("ada"));
  const other = limit.hit("grace");
  assert.deepEqual(store.writes, ["ada"], "one lane: grace's write waits for ada's");
  refuse = 30;
  assert.equal(limit.hit("ada"), 30, "refused by the replica's own limit: answered at once, never written");
  refuse = 0;
  open(); // the clock stands still: ada's next write waits out the spacing, grace's goes first
  assert.deepEqual([await first, ...(await Promise.all(more)), await other], [0, 0, 0, 7, 7, 7, 0]);
  assert.deepEqual(store.writes, ["ada", "grace", "ada"]);
  assert.equal(await store.get("rate-users", "ada"), 6);

  shut();
  const again = limit.hit("lin");
  const queued = limit.hit("lin");
  clock += 1000; // the write took longer than the spacing: the next one starts at once
  open();
  assert.deepEqual([await again, await queued], [0, 0]);
  assert.deepEqual(store.writes.slice(3), ["lin", "lin"]);
});

test("far from the limit a request goes at once and is counted in the next write; near it, or once what was written is a second old, it waits", async () => {
  const store = new MemoryRecordStore();
  let clock = 0;
  // Ten per key: after a first write of one, nine more have room; at most half of that goes unwaited.
  const step = (n: number | undefined) => ({ state: (n ?? 0) + 1, wait: (n ?? 0) + 1 > 10 ? 7 : 0 });
  const limit = new SharedLimit<number>(
    store,
    "rate-users",
    step,
    () => 0,
    () => clock,
  );
  assert.ok(limit.hit("ada") instanceof Promise, "nothing written yet: it waits");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await store.get("rate-users", "ada"), 1);
  const unwaited = [0, 1, 2, 3].map(() => limit.hit("ada"));
  assert.deepEqual(unwaited, [0, 0, 0, 0], "four of the nine at once");
  assert.ok(limit.hit("ada") instanceof Promise, "the fifth would pass half the room: it waits");
  clock += 1001;
  assert.ok(limit.hit("ada") instanceof Promise, "what was written is a second old: it waits");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await store.get("rate-users", "ada"), 7, "every request let through is counted");

  // What is known of keys is bounded: past 10,000 keys it is forgotten, and their requests wait again.
  await limit.hit("zed");
  assert.equal(limit.hit("zed"), 0);
  await Promise.all(Array.from({ length: 10_000 }, (_, i) => limit.hit(`k${i}`)));
  assert.ok(limit.hit("zed") instanceof Promise);
});
