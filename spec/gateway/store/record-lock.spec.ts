import assert from "node:assert/strict";
import { test } from "node:test";
import { join } from "node:path";
import { RecordLockBusy, withRecordLock } from "../../../lib/gateway/store/record-lock.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { StoreAccountDirectory } from "../../../lib/gateway/accounts.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";

test("changes under one lock run one at a time, and the lock is gone afterwards", async () => {
  const store = new MemoryRecordStore();
  let inside = 0;
  let most = 0;
  const work = async (): Promise<void> => {
    most = Math.max(most, ++inside);
    await new Promise((done) => setImmediate(done));
    inside--;
  };
  await Promise.all([1, 2, 3, 4].map(() => withRecordLock(store, "locks", "ada", work)));
  assert.equal(most, 1);
  assert.equal(await store.get("locks", "ada"), undefined);
  await assert.rejects(withRecordLock(store, "locks", "ada", () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await store.get("locks", "ada"), undefined, "released when the work fails");
});

test("a live holder makes others wait, then give up busy; a crashed holder's lock is taken over", async () => {
  const store = new MemoryRecordStore();
  await store.create("locks", "ada", { at: Date.now() });
  await assert.rejects(withRecordLock(store, "locks", "ada", async () => 1, { waitMs: 0 }), RecordLockBusy);
  await store.put("locks", "ada", { at: Date.now() - 60_000 });
  assert.equal(await withRecordLock(store, "locks", "ada", async () => 2), 2);
});

test("a password change racing a removal never brings the account back", async (t) => {
  const store = new FileRecordStore(join(tempDir(t), "data"));
  const accounts = new StoreAccountDirectory(store);
  for (let round = 0; round < 5; round++) {
    await accounts.add("ada", "pw", ["staff"]);
    const results = await Promise.allSettled([accounts.setPassword("ada", "new"), accounts.remove("ada"), accounts.setGroups("ada", ["x"])]);
    assert.equal(results[1].status, "fulfilled");
    assert.equal(await accounts.groupsOf("ada"), null);
    for (const r of results) if (r.status === "rejected") assert.match(String(r.reason), /no user ada/);
  }
});
