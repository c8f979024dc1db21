// The one contract every RecordStore keeps; run against each implementation by
// record-store.spec.ts (and postgres-record-store.spec.ts).
import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import type { RecordStore } from "../../lib/gateway/contracts/interfaces.ts";

type Cleanup = { after(fn: () => unknown): void };

/**
 * `make` gives a fresh store; `pair`, when the store can be shared (a data dir, a database),
 * two store objects on the same data, as two processes would hold them.
 */
export function recordStoreContract(
  name: string,
  make: (t: Cleanup) => RecordStore | Promise<RecordStore>,
  options: { pair?: (t: Cleanup) => [RecordStore, RecordStore] | Promise<[RecordStore, RecordStore]>; skip?: string | false } = {},
): void {
  const { pair, skip = false } = options;
  // `skip`: a reason to skip every test (e.g. no database here), shown in the report.
  const test = (title: string, fn: (t: Cleanup) => Promise<void>): void => void nodeTest(title, { skip }, fn);
  test(`${name}: put, get, list and delete round-trip JSON values`, async (t) => {
    const store = await make(t);
    assert.equal(await store.get("clients", "a"), undefined);
    await store.put("clients", "a", { n: 1, list: [] });
    await store.put("clients", "b/../c", { n: 2 });
    assert.deepEqual(await store.get("clients", "a"), { n: 1, list: [] });
    assert.deepEqual(await store.get("clients", "b/../c"), { n: 2 });
    const listed = (await store.list<{ n: number }>("clients")).sort((x, y) => x.value.n - y.value.n);
    assert.deepEqual(listed, [
      { id: "a", value: { n: 1, list: [] } },
      { id: "b/../c", value: { n: 2 } },
    ]);
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

  test(`${name}: update reads, changes and writes one record; undefined leaves it as it is`, async (t) => {
    const store = await make(t);
    const seen: unknown[] = [];
    const created = await store.update<{ n: number }>("grants", "g", (current) => (seen.push(current), { n: (current?.n ?? 0) + 1 }));
    assert.deepEqual(created, { n: 1 });
    assert.deepEqual(seen, [undefined]);
    assert.deepEqual(await store.update<{ n: number }>("grants", "g", (current) => ({ n: current!.n + 1 })), { n: 2 });
    assert.deepEqual(await store.update("grants", "g", () => undefined), { n: 2 }, "answers the record as it is");
    assert.equal(await store.update("grants", "absent", () => undefined), undefined);
    assert.equal(await store.get("grants", "absent"), undefined, "nothing was created");
    const answered = await store.update<{ list: number[] }>("grants", "copy", () => ({ list: [1] }));
    answered!.list.push(2);
    assert.deepEqual(await store.get("grants", "copy"), { list: [1] }, "the answer is a copy");
    await store.delete("grants", "g");
    assert.deepEqual(await store.update<{ n: number }>("grants", "g", (current) => ({ n: (current?.n ?? 0) + 10 })), { n: 10 });
    await assert.rejects(
      store.update("../up", "a", () => 1),
      TypeError,
    );
  });

  test(`${name}: concurrent updates of one record lose nothing`, async (t) => {
    const store = await make(t);
    const bump = (): Promise<{ n: number } | undefined> => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }));
    const answers = await Promise.all(Array.from({ length: 40 }, bump));
    assert.deepEqual(await store.get("counters", "c"), { n: 40 });
    assert.deepEqual(
      answers.map((a) => a!.n).sort((x, y) => x - y),
      Array.from({ length: 40 }, (_, i) => i + 1),
      "each saw the one before",
    );
  });

  test(`${name}: a compare-then-change through update has exactly one winner`, async (t) => {
    const store = await make(t);
    await store.put("grants", "g", { revoked: false, rotated: null });
    // Four refreshes and a revocation at once: each refresh claims the rotation only on a live grant.
    const claims = [1, 2, 3, 4].map((n) =>
      store.update<{ revoked: boolean; rotated: number | null }>("grants", "g", (g) =>
        g && !g.revoked && g.rotated === null ? { ...g, rotated: n } : undefined,
      ),
    );
    const revoke = store.update<{ revoked: boolean }>("grants", "g", (g) => (g && !g.revoked ? { ...g, revoked: true } : undefined));
    const results = await Promise.all(claims);
    await revoke;
    const final = await store.get<{ revoked: boolean; rotated: number | null }>("grants", "g");
    assert.equal(final!.revoked, true, "the revocation is never written over");
    const winners = results.filter((r, i) => r?.rotated === i + 1 && !r.revoked);
    assert.ok(winners.length <= 1);
  });

  if (pair) {
    test(`${name}: two store objects on the same data update one record without losing any change`, async (t) => {
      const [a, b] = await pair(t);
      const bump = (store: RecordStore): Promise<unknown> => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }));
      await a.put("counters", "c", { n: 0 });
      assert.deepEqual(await b.get("counters", "c"), { n: 0 }, "b may remember this copy");
      await Promise.all([...Array.from({ length: 25 }, () => bump(a)), ...Array.from({ length: 25 }, () => bump(b))]);
      assert.deepEqual(await a.update("counters", "c", () => undefined), { n: 50 });
      assert.deepEqual(await b.update("counters", "c", () => undefined), { n: 50 });
    });
  }
}
