import assert from "node:assert/strict";
import { test } from "node:test";
import type { RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import { CachingRecordStore } from "../../../lib/gateway/store/caching-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { recordStoreContract } from "../record-store-contract.ts";

recordStoreContract("CachingRecordStore", () => new CachingRecordStore(new MemoryRecordStore(), { ttlMs: 60_000, keep: () => true }), {
  pair: () => {
    const shared = new MemoryRecordStore();
    return [new CachingRecordStore(shared, { ttlMs: 60_000, keep: () => true }), new CachingRecordStore(shared, { ttlMs: 60_000, keep: () => true })];
  },
});

/** A store behind the cache that counts reads, with a clock the test moves. */
function setup(options: { ttlMs?: number; keep?: (collection: string, value: unknown) => boolean; maxEntries?: number } = {}) {
  const inner = new MemoryRecordStore();
  let reads = 0;
  let gate: Promise<void> | undefined;
  let writeGate: Promise<void> | undefined;
  const counted: RecordStore = {
    get: async <T>(collection: string, id: string) => {
      reads++;
      const value = await inner.get<T>(collection, id);
      await gate;
      return value;
    },
    put: async (collection, id, value) => (await writeGate, inner.put(collection, id, value)),
    create: async (collection, id, value) => (await writeGate, inner.create(collection, id, value)),
    delete: async (collection, id) => (await writeGate, inner.delete(collection, id)),
    update: async (collection, id, change) => (await writeGate, inner.update(collection, id, change)),
    list: (collection) => inner.list(collection),
    secret: (name) => inner.secret(name),
  };
  let now = 1_000;
  const cache = new CachingRecordStore(counted, {
    ttlMs: options.ttlMs ?? 1000,
    keep: options.keep ?? (() => true),
    maxEntries: options.maxEntries,
    now: () => now,
  });
  /** Holds reads that have their value until the returned function is called. */
  const holdReads = (): (() => void) => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    return () => {
      gate = undefined;
      open();
    };
  };
  /** Holds writes until the returned function is called. */
  const holdWrites = (): (() => void) => {
    let open!: () => void;
    writeGate = new Promise((resolve) => (open = resolve));
    return () => {
      writeGate = undefined;
      open();
    };
  };
  return { inner, cache, reads: () => reads, advance: (ms: number) => (now += ms), holdReads, holdWrites };
}

test("a record read is trusted for ttlMs, then read again: another process's change shows within it", async () => {
  const s = setup();
  await s.inner.put("api-tokens", "t1", { user: "ada" });
  assert.deepEqual(await s.cache.get("api-tokens", "t1"), { user: "ada" });
  assert.deepEqual(await s.cache.get("api-tokens", "t1"), { user: "ada" });
  assert.equal(s.reads(), 1);
  await s.inner.delete("api-tokens", "t1"); // a `token revoke` in another process
  s.advance(999);
  assert.deepEqual(await s.cache.get("api-tokens", "t1"), { user: "ada" });
  s.advance(1);
  assert.equal(await s.cache.get("api-tokens", "t1"), undefined);
  assert.equal(s.reads(), 2);
  assert.equal(s.cache.size, 0, "the expired copy of a deleted record is let go");
});

test("writes through the cache take effect at once; misses and unkept records are never remembered", async () => {
  const s = setup({ keep: (collection, value) => collection === "tool-sessions" && (value as { state: string }).state === "ready" });
  await s.cache.put("tool-sessions", "k", { state: "starting" });
  await s.cache.get("tool-sessions", "k");
  await s.cache.get("tool-sessions", "k");
  assert.equal(s.reads(), 2, "a starting session is read every time");
  await s.cache.put("tool-sessions", "k", { state: "ready" });
  assert.deepEqual(await s.cache.get("tool-sessions", "k"), { state: "ready" });
  assert.deepEqual(await s.cache.get("tool-sessions", "k"), { state: "ready" });
  assert.equal(s.reads(), 3);
  await s.cache.delete("tool-sessions", "k");
  assert.equal(await s.cache.get("tool-sessions", "k"), undefined);
  await s.inner.put("tool-sessions", "k", { state: "ready" }); // created by another replica
  assert.deepEqual(await s.cache.get("tool-sessions", "k"), { state: "ready" }, "a miss was not remembered");
  assert.equal(await s.cache.create("tool-sessions", "k", { state: "starting" }), false);
  await s.cache.put("accounts", "ada", { groups: [] });
  await s.cache.get("accounts", "ada");
  await s.cache.get("accounts", "ada");
  const before = s.reads();
  await s.cache.get("accounts", "ada");
  assert.equal(s.reads(), before + 1, "a collection the predicate refuses is always read");
});

test("a read that overlaps a write does not put the old value back", async () => {
  const s = setup();
  await s.inner.put("accounts", "ada", { groups: ["old"] });
  const release = s.holdReads();
  const racing = s.cache.get("accounts", "ada");
  await s.cache.put("accounts", "ada", { groups: ["new"] });
  release();
  assert.deepEqual(await racing, { groups: ["old"] }, "read before the write landed");
  assert.deepEqual(await s.cache.get("accounts", "ada"), { groups: ["new"] });
});

test("remembered records are bounded in number, and ttl 0 turns the cache off", async () => {
  const s = setup({ maxEntries: 2 });
  for (const id of ["a", "b", "c"]) await s.inner.put("accounts", id, { groups: ["g"] });
  (await s.cache.get<{ groups: string[] }>("accounts", "a"))!.groups.push("admin");
  assert.deepEqual(await s.cache.get("accounts", "a"), { groups: ["g"] }, "a reader's change stays its own");
  await s.cache.get("accounts", "b");
  await s.cache.get("accounts", "c"); // evicts a, the oldest
  const reads = s.reads();
  await s.cache.get("accounts", "c");
  await s.cache.get("accounts", "a");
  assert.equal(s.reads(), reads + 1);

  const off = setup({ ttlMs: 0 });
  await off.inner.put("accounts", "a", { groups: [] });
  await off.cache.get("accounts", "a");
  await off.cache.get("accounts", "a");
  assert.equal(off.reads(), 2);
  assert.ok((await off.cache.secret("k")).equals(await off.inner.secret("k")));
});

test("reads of one record under way at once go to the store once; a write starts afresh", async () => {
  const s = setup();
  await s.inner.put("accounts", "ada", { groups: ["g"] });
  const release = s.holdReads();
  const readers = [s.cache.get<{ groups: string[] }>("accounts", "ada"), s.cache.get<{ groups: string[] }>("accounts", "ada")];
  release();
  const [a, b] = await Promise.all(readers);
  assert.equal(s.reads(), 1);
  assert.deepEqual(a, { groups: ["g"] });
  assert.notEqual(a, b, "each caller its own copy");

  s.advance(5_000);
  const hold = s.holdReads();
  const before = s.cache.get("accounts", "ada");
  await s.cache.put("accounts", "ada", { groups: [] });
  const after = s.cache.get("accounts", "ada");
  hold();
  assert.deepEqual(await before, { groups: ["g"] });
  assert.deepEqual(await after, { groups: [] }, "a read asked for after the write does not join the older one");
});

test("a read that starts during a write is not joined by reads asked for after it", async () => {
  const s = setup();
  await s.inner.put("api-tokens", "t", { user: "ada" });
  const releaseWrites = s.holdWrites();
  const deleting = s.cache.delete("api-tokens", "t");
  const releaseReads = s.holdReads();
  const during = s.cache.get("api-tokens", "t");
  releaseWrites();
  await deleting;
  const after = s.cache.get("api-tokens", "t");
  releaseReads();
  assert.deepEqual(await during, { user: "ada" }, "began before the delete landed");
  assert.equal(await after, undefined, "asked for after the delete returned");
  assert.equal(await s.cache.get("api-tokens", "t"), undefined);
});

test("update decides on the record as the data dir has it, never on a remembered copy, and forgets the copy", async () => {
  const s = setup({ ttlMs: 60_000 });
  await s.inner.put("oauth-grants", "g", { revoked: false });
  assert.deepEqual(await s.cache.get("oauth-grants", "g"), { revoked: false });
  await s.inner.put("oauth-grants", "g", { revoked: true }); // revoked by another process
  const seen: unknown[] = [];
  const answer = await s.cache.update<{ revoked: boolean; refreshed?: boolean }>(
    "oauth-grants",
    "g",
    (g) => (seen.push(g), g && !g.revoked ? { ...g, refreshed: true } : undefined),
  );
  assert.deepEqual(seen, [{ revoked: true }]);
  assert.deepEqual(answer, { revoked: true });
  await s.cache.update<{ n?: number }>("oauth-grants", "g", (g) => ({ ...g, n: 1 }));
  assert.deepEqual(await s.cache.get("oauth-grants", "g"), { revoked: true, n: 1 });
});
