// API tokens as the gateway checks them on every request: a token verified once is reused
// only while the token's and the account's remembered records are (CachingRecordStore.copyOf),
// so a revocation or removal takes effect exactly as soon as it did without the reuse.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { CachingRecordStore } from "../../../lib/gateway/store/caching-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";

async function setUp() {
  const inner = new MemoryRecordStore();
  let now = 1_000_000;
  const cache = new CachingRecordStore(inner, { ttlMs: 1000, keep: () => true, now: () => now });
  const accounts = new StoreAccountDirectory(cache);
  const gateway = new ApiTokens(cache, accounts, (collection, id) => cache.copyOf(collection, id));
  // Another process on the same data dir (the `hub_gateway token` CLI): writes past this gateway's cache.
  const elsewhere = { accounts: new StoreAccountDirectory(inner), tokens: new ApiTokens(inner, new StoreAccountDirectory(inner)) };
  await elsewhere.accounts.add("ada", "pw-ada-long-enough", ["staff"]);
  const made = (await elsewhere.tokens.create("ada"))!;
  return { gateway, elsewhere, made, cache, tick: (ms: number) => (now += ms) };
}

test("a verified token is reused only while its records are remembered: a revocation elsewhere shows within the cache bound", async () => {
  const { gateway, elsewhere, made, tick } = await setUp();
  assert.equal((await gateway.verify(made.token))?.user, "ada");
  assert.deepEqual(await gateway.verify(made.token), { user: "ada", groups: ["staff"], kind: "api-token" });
  await elsewhere.tokens.revoke(made.id);
  assert.equal((await gateway.verify(made.token))?.user, "ada", "within the bound, as the cache alone would answer");
  tick(1001);
  assert.equal(await gateway.verify(made.token), null, "past the bound the revocation holds");
});

test("a revocation or removal through the gateway's own store holds at once; a wrong secret for a remembered id is refused", async () => {
  const { gateway, made, cache } = await setUp();
  assert.ok(await gateway.verify(made.token));
  const forged = made.token.slice(0, -1) + (made.token.endsWith("A") ? "B" : "A");
  assert.equal(await gateway.verify(forged), null, "same id, another secret");
  assert.ok(await gateway.verify(made.token));
  await new StoreAccountDirectory(cache).remove("ada");
  assert.equal(await gateway.verify(made.token), null, "the account is gone");
});

test("a group change elsewhere reaches the principal within the bound", async () => {
  const { gateway, elsewhere, made, tick } = await setUp();
  assert.deepEqual((await gateway.verify(made.token))?.groups, ["staff"]);
  await elsewhere.accounts.setGroups("ada", []);
  tick(1001);
  assert.deepEqual((await gateway.verify(made.token))?.groups, []);
});

test("verifyNow answers at once only what verify would: the remembered principal, null for what is no token, else undefined", async () => {
  const { gateway, elsewhere, made, tick } = await setUp();
  assert.equal(gateway.verifyNow(made.token), undefined, "not verified yet: only verify can say");
  assert.equal(gateway.verifyNow("not-a-token"), null);
  const principal = await gateway.verify(made.token);
  assert.deepEqual(gateway.verifyNow(made.token), principal);
  assert.ok(Object.isFrozen(gateway.verifyNow(made.token)) && Object.isFrozen(gateway.verifyNow(made.token)!.groups), "shared by every request: frozen");
  const forged = made.token.slice(0, -1) + (made.token.endsWith("A") ? "B" : "A");
  assert.equal(gateway.verifyNow(forged), undefined, "same id, another secret: verify decides (and refuses)");
  await elsewhere.tokens.revoke(made.id);
  tick(1001);
  assert.equal(gateway.verifyNow(made.token), undefined, "past the bound the remembered records are not trusted");
  assert.equal(await gateway.verify(made.token), null);
});

test("an expired token is refused exactly as a revoked one, on the remembered path too; one without expiry keeps working", async () => {
  const inner = new MemoryRecordStore();
  let now = Date.parse("2026-01-01T00:00:00Z");
  // Remembered longer than the token lives, so only the expiry check can refuse the copy.
  const cache = new CachingRecordStore(inner, { ttlMs: 2 * 3600_000, keep: () => true, now: () => now });
  const accounts = new StoreAccountDirectory(cache);
  await accounts.add("ada", "pw-ada-long-enough", ["staff"]);
  const tokens = new ApiTokens(
    cache,
    accounts,
    (collection, id) => cache.copyOf(collection, id),
    () => now,
  );
  const expiring = (await tokens.create("ada", { name: "laptop", expiresAt: new Date(now + 3600_000) }))!;
  const forever = (await tokens.create("ada"))!;
  assert.ok(await tokens.verify(expiring.token));
  assert.ok(tokens.verifyNow(expiring.token), "remembered while valid");
  now += 3600_000;
  assert.equal(tokens.verifyNow(expiring.token), null, "the remembered copy honours the expiry");
  assert.equal(await tokens.verify(expiring.token), null);
  await tokens.revoke(forever.id);
  assert.equal(await tokens.verify(forever.token), null, "revoked: the same null");
  const old = (await tokens.create("ada"))!;
  now += 10 * 365 * 86_400_000;
  assert.equal((await tokens.verify(old.token))?.user, "ada", "no expiry: valid years later");
  const listed = await tokens.listOf("ada");
  assert.deepEqual(
    listed.map((t) => [t.id, t.name, t.expiresAt]),
    [
      [old.id, undefined, undefined],
      [expiring.id, "laptop", "2026-01-01T01:00:00.000Z"],
    ],
  );
});

test("last use is written at most once a minute per token, beside the token's record", async () => {
  let writes = 0;
  class Counting extends MemoryRecordStore {
    override put(collection: string, id: string, value: unknown): Promise<void> {
      if (collection === "api-token-use") writes++;
      return super.put(collection, id, value);
    }
  }
  const store = new Counting();
  let now = Date.parse("2026-01-01T00:00:00Z");
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("ada", "pw-ada-long-enough", []);
  const tokens = new ApiTokens(store, accounts, undefined, () => now);
  const made = (await tokens.create("ada"))!;
  for (let i = 0; i < 50; i++) assert.ok(await tokens.verify(made.token));
  assert.equal(writes, 1);
  now += 59_000;
  assert.ok(await tokens.verify(made.token));
  assert.equal(writes, 1, "within the minute: no write");
  now += 1000;
  assert.ok(await tokens.verify(made.token));
  assert.equal(writes, 2);
  assert.equal((await tokens.listOf("ada"))[0]!.lastUsedAt, new Date(now).toISOString());
  await tokens.revoke(made.id);
  assert.deepEqual(await store.list("api-token-use"), [], "revoking forgets its last use");
});
