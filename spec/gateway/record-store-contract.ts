// The one contract every RecordStore keeps; run against each implementation by
// record-store.spec.ts (and postgres-record-store.spec.ts).
import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import type { RecordStore } from "../../lib/gateway/contracts.ts";

type Make = (t: { after(fn: () => unknown): void }) => RecordStore | Promise<RecordStore>;

/** `skip`: a reason to skip every test (e.g. no database here), shown in the report. */
export function recordStoreContract(name: string, make: Make, options: { skip?: string | false } = {}): void {
  const test = (title: string, fn: (t: { after(fn: () => unknown): void }) => Promise<void>): void => void nodeTest(title, { skip: options.skip || false }, fn);
  test(`${name}: put, get, list and delete round-trip JSON values`, async (t) => {
    const store = await make(t);
    assert.equal(await store.get("clients", "a"), undefined);
    await store.put("clients", "a", { n: 1, list: [] });
    await store.put("clients", "b/../c", { n: 2 });
    assert.deepEqual(await store.get("clients", "a"), { n: 1, list: [] });
    assert.deepEqual(await store.get("clients", "b/../c"), { n: 2 });
    const listed = (await store.list<{ n: number }>("clients")).sort((x, y) => x.value.n - y.value.n);
    assert.deepEqual(listed, [{ id: "a", value: { n: 1, list: [] } }, { id: "b/../c", value: { n: 2 } }]);
    await store.put("clients", "a", { n: 3 });
    assert.deepEqual(await store.get("clients", "a"), { n: 3 });
    await store.delete("clients", "a");
    await store.delete("clients", "a");
    assert.equal(await store.get("clients", "a"), undefined);
    assert.deepEqual(await store.list("nothing-here"), []);
  });

  test(`${name}: create is first-writer-wins`, async (t) => {
    const store = await make(t);
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.create("codes", "x", { n })));
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true) + 1;
    assert.deepEqual(await store.get("codes", "x"), { n: winner });
  });

  test(`${name}: values are copies`, async (t) => {
    const store = await make(t);
    const value = { list: [1] };
    await store.put("users", "u", value);
    value.list.push(2);
    const read = await store.get<{ list: number[] }>("users", "u");
    read!.list.push(3);
    assert.deepEqual(await store.get("users", "u"), { list: [1] });
  });

  test(`${name}: a secret is made once and kept`, async (t) => {
    const store = await make(t);
    const [a, b] = await Promise.all([store.secret("session-key"), store.secret("session-key")]);
    assert.equal(a.length, 32);
    assert.ok(a.equals(b));
    assert.ok(!(await store.secret("other")).equals(a));
  });

  test(`${name}: bad collection names and ids are refused`, async (t) => {
    const store = await make(t);
    await assert.rejects(store.put("../up", "a", 1), TypeError);
    await assert.rejects(store.put("clients", "", 1), TypeError);
    await assert.rejects(store.get("clients", "x".repeat(513)), TypeError);
  });

  test(`${name}: update writes what change answers, and leaves the record alone on undefined`, async (t) => {
    const store = await make(t);
    const seen: unknown[] = [];
    assert.deepEqual(await store.update<{ n: number }>("grants", "g", (current) => (seen.push(current), { n: (current?.n ?? 0) + 1 })), { n: 1 });
    assert.deepEqual(await store.update<{ n: number }>("grants", "g", (current) => (seen.push(current), current && { n: current.n + 1 })), { n: 2 });
    assert.deepEqual(seen, [undefined, { n: 1 }]);
    assert.deepEqual(await store.update("grants", "g", () => undefined), { n: 2 });
    assert.equal(await store.update("grants", "absent", () => undefined), undefined);
    assert.equal(await store.get("grants", "absent"), undefined);
    assert.deepEqual(await store.get("grants", "g"), { n: 2 });
  });

  test(`${name}: concurrent updates of one record lose no change, and only one of two takers wins`, async (t) => {
    const store = await make(t);
    await Promise.all(Array.from({ length: 20 }, () => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }))));
    assert.deepEqual(await store.get("counters", "c"), { n: 20 });
    // Compare-then-change: a one-time value taken by whoever sees it unused first.
    await store.put("families", "f", { used: false, by: null });
    const takers = ["a", "b", "c", "d"];
    const won = await Promise.all(
      takers.map(async (who) => (await store.update<{ used: boolean; by: string | null }>("families", "f", (f) => (f && !f.used ? { used: true, by: who } : undefined)))?.by === who),
    );
    assert.equal(won.filter(Boolean).length, 1);
  });
}
