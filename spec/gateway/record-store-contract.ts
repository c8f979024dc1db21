// The one contract every RecordStore keeps; run against each implementation by
// record-store.spec.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RecordStore } from "../../lib/gateway/contracts.ts";

export function recordStoreContract(name: string, make: (t: { after(fn: () => unknown): void }) => RecordStore): void {
  test(`${name}: put, get, list and delete round-trip JSON values`, async (t) => {
    const store = make(t);
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
    const store = make(t);
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.create("codes", "x", { n })));
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true) + 1;
    assert.deepEqual(await store.get("codes", "x"), { n: winner });
  });

  test(`${name}: values are copies`, async (t) => {
    const store = make(t);
    const value = { list: [1] };
    await store.put("users", "u", value);
    value.list.push(2);
    const read = await store.get<{ list: number[] }>("users", "u");
    read!.list.push(3);
    assert.deepEqual(await store.get("users", "u"), { list: [1] });
  });

  test(`${name}: a secret is made once and kept`, async (t) => {
    const store = make(t);
    const [a, b] = await Promise.all([store.secret("session-key"), store.secret("session-key")]);
    assert.equal(a.length, 32);
    assert.ok(a.equals(b));
    assert.ok(!(await store.secret("other")).equals(a));
  });

  test(`${name}: bad collection names and ids are refused`, async (t) => {
    const store = make(t);
    await assert.rejects(store.put("../up", "a", 1), TypeError);
    await assert.rejects(store.put("clients", "", 1), TypeError);
    await assert.rejects(store.get("clients", "x".repeat(513)), TypeError);
  });
}
