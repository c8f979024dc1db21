// API tokens as the gateway checks them on every request: a token verified once is reused
// only while the token's and the account's remembered records are (CachingRecordStore.copyOf),
// so a revocation or removal takes effect exactly as soon as it did without the reuse.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StoreAccountDirectory } from "../../lib/gateway/accounts.ts";
import { ApiTokens } from "../../lib/gateway/api-tokens.ts";
import { CachingRecordStore } from "../../lib/gateway/store/caching-record-store.ts";
import { MemoryRecordStore } from "../../lib/gateway/store/memory-record-store.ts";

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
