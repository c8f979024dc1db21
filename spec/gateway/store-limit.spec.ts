// Rate limits counted in a shared store: replicas on one store share one budget per key,
// and while the store is unreachable each replica's own limit decides.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../lib/gateway/accounts.ts";
import { ApiTokens } from "../../lib/gateway/api-tokens.ts";
import { parseGatewayConfig } from "../../lib/gateway/config.ts";
import { resolveOptions } from "../../lib/gateway/oauth/options.ts";
import { LIMITS, oauthLimit } from "../../lib/gateway/oauth/rate-limit.ts";
import { Sweeper } from "../../lib/gateway/oauth/sweeper.ts";
import { TokenBucketLimiter } from "../../lib/gateway/rate-limit.ts";
import { startGateway } from "../../lib/gateway/server.ts";
import { MemoryRecordStore } from "../../lib/gateway/store/memory-record-store.ts";
import { PostgresRecordStore } from "../../lib/gateway/store/postgres-record-store.ts";
import { StoreUnavailableError } from "../../lib/gateway/store/store-errors.ts";
import { POSTGRES_SKIP, postgresCluster } from "../helpers/postgres.ts";
import { fake, post, ROOT } from "./helpers.ts";

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
  await assert.rejects(limit.hit("u"), /a bug/);
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
