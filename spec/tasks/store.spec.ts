// The run store without HTTP: every status transition, caps, expiry on an injected clock,
// eviction, session end and shutdown.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { AsyncStore, type StartRequest } from "../../lib/tasks/store.ts";
import type { AsyncRun, Settled } from "../../lib/tasks/run.ts";
import { Session } from "../../lib/session/session.ts";
import { deferred, manualClock, type Deferred } from "./harness.ts";

const ok = (value: number): Settled => ({ result: { content: [{ type: "text", text: String(value) }], isError: false }, value });
const bad = (text: string): Settled => ({ result: { content: [{ type: "text", text }], isError: true }, value: null });

/** Starts a run whose handler finishes when the test resolves `gate`. */
function startGated(store: AsyncStore, over: Partial<StartRequest> = {}): { run: AsyncRun; gate: Deferred<Settled>; seen: { signal?: AbortSignal } } {
  const gate = deferred<Settled>();
  const seen: { signal?: AbortSignal } = {};
  const started = store.start({
    how: { kind: "job" },
    session: null,
    toolName: "t",
    execute: (run) => {
      seen.signal = run.signal;
      return gate.promise;
    },
    ...over,
  });
  if (!started.ok) throw new Error(started.message);
  return { run: started.run, gate, seen };
}

describe("AsyncStore transitions", () => {
  test("working → completed keeps the result and frees the slot", async () => {
    const store = new AsyncStore();
    const { run, gate } = startGated(store);
    assert.equal(run.status, "working");
    assert.equal(run.running, true);
    assert.equal(store.running, 1);
    assert.equal(store.get(run.id), run);
    gate.resolve(ok(6));
    await run.whenTerminal();
    assert.equal(run.status, "completed");
    assert.equal(run.settled?.value, 6);
    await Promise.resolve();
    assert.equal(run.running, false);
    assert.equal(store.running, 0);
  });

  test("an isError result is failed", async () => {
    const store = new AsyncStore();
    const { run, gate } = startGated(store);
    gate.resolve(bad("boom"));
    await run.whenTerminal();
    assert.equal(run.status, "failed");
  });

  test("an execute that throws anyway is failed with a fixed text", async () => {
    const store = new AsyncStore();
    const { run, gate } = startGated(store);
    gate.reject(new Error("secret detail"));
    await run.whenTerminal();
    assert.equal(run.status, "failed");
    assert.deepEqual(run.settled?.result.content, [{ type: "text", text: "Tool failed" }]);
  });

  test("an execute that throws synchronously is a failed run too", async () => {
    const store = new AsyncStore();
    const started = store.start({
      how: { kind: "job" },
      session: null,
      toolName: "t",
      execute: () => {
        throw new Error("sync");
      },
    });
    assert.ok(started.ok);
    await started.run.whenTerminal();
    assert.equal(started.run.status, "failed");
    assert.equal(store.running, 0);
  });

  test("working ⇄ input_required, ignored once terminal", async () => {
    const clock = manualClock();
    const store = new AsyncStore({ now: clock.now });
    const { run, gate } = startGated(store);
    clock.advance(5);
    run.setInputRequired(true, clock.now());
    assert.equal(run.status, "input_required");
    assert.equal(run.updatedAt, run.createdAt + 5);
    run.setInputRequired(true, clock.now());
    run.setInputRequired(false, clock.now());
    assert.equal(run.status, "working");
    gate.resolve(ok(1));
    await run.whenTerminal();
    run.setInputRequired(true, clock.now());
    assert.equal(run.status, "completed");
  });

  test("cancel aborts the signal; a handler that ignores it keeps its slot until it returns, and stays cancelled", async () => {
    const store = new AsyncStore();
    const { run, gate, seen } = startGated(store);
    assert.equal(run.cancel(store.now()), true);
    assert.equal(run.status, "cancelled");
    assert.equal(seen.signal?.aborted, true);
    assert.equal(run.cancel(store.now()), false, "a second cancel is refused");
    assert.equal(run.running, true);
    assert.equal(store.running, 1);
    gate.resolve(ok(6));
    await gate.promise;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(run.status, "cancelled");
    assert.equal(run.settled, null);
    assert.equal(store.running, 0);
  });

  test("cancel racing completion: a cancel in the same tick as the handler's return wins", async () => {
    const store = new AsyncStore();
    const { run, gate } = startGated(store);
    gate.resolve(ok(6));
    assert.equal(run.cancel(store.now()), true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(run.status, "cancelled");
  });

  test("cancel racing completion: once completed, a cancel is refused", async () => {
    const store = new AsyncStore();
    const { run, gate } = startGated(store);
    gate.resolve(ok(6));
    await run.whenTerminal();
    assert.equal(run.cancel(store.now()), false);
    assert.equal(run.status, "completed");
  });

  test("concurrent runs settle independently, in any order", async () => {
    const store = new AsyncStore();
    const runs = Array.from({ length: 5 }, () => startGated(store));
    assert.equal(new Set(runs.map((r) => r.run.id)).size, 5);
    for (const r of [...runs].reverse()) r.gate.resolve(ok(runs.indexOf(r)));
    await Promise.all(runs.map((r) => r.run.whenTerminal()));
    assert.deepEqual(
      runs.map((r) => r.run.settled?.value),
      [0, 1, 2, 3, 4],
    );
  });
});

describe("AsyncStore lifetime and caps", () => {
  test("a finished record expires its TTL after it finished; a live one never does", async () => {
    const clock = manualClock();
    const store = new AsyncStore({ now: clock.now, ttlMs: 1000 });
    const live = startGated(store);
    const done = startGated(store);
    done.gate.resolve(ok(1));
    await done.run.whenTerminal();
    clock.advance(999);
    assert.equal(store.get(done.run.id), done.run);
    clock.advance(1);
    assert.equal(store.get(done.run.id), undefined);
    clock.advance(10 * 3_600_000);
    assert.equal(store.get(live.run.id), live.run);
    assert.equal(store.get(42), undefined);
  });

  test("a requested TTL may shorten the lifetime, never lengthen it", () => {
    const store = new AsyncStore({ ttlMs: 5000 });
    assert.equal(startGated(store, { ttlMs: 100 }).run.ttlMs, 100);
    assert.equal(startGated(store, { ttlMs: 10_000 }).run.ttlMs, 5000);
    assert.equal(startGated(store, { ttlMs: -1 }).run.ttlMs, 5000);
  });

  test("expired records are swept when new work starts", async () => {
    const clock = manualClock();
    const store = new AsyncStore({ now: clock.now, ttlMs: 10 });
    const a = startGated(store);
    a.gate.resolve(ok(1));
    await a.run.whenTerminal();
    clock.advance(5000);
    startGated(store);
    assert.equal(store.size, 1);
  });

  test("running handlers are capped per session and in total, with a clear message", () => {
    const store = new AsyncStore({ maxRunningPerSession: 2, maxRunning: 3 });
    const s1 = new Session("s1", 0);
    const s2 = new Session("s2", 0);
    const start = (session: Session | null) => store.start({ how: { kind: "job" }, session, toolName: "t", execute: () => new Promise(() => {}) });
    assert.equal(start(s1).ok, true);
    assert.equal(start(s1).ok, true);
    const third = start(s1);
    assert.equal(third.ok, false);
    assert.equal(!third.ok && third.reason, "session-cap");
    assert.match(!third.ok ? third.message : "", /Too many running jobs in this session \(limit 2\)/);
    assert.equal(start(s2).ok, true);
    const over = start(null);
    assert.equal(!over.ok && over.reason, "total-cap");
    assert.match(!over.ok ? over.message : "", /Too many running jobs on this server \(limit 3\)/);
  });

  test("at maxRecords the oldest finished record makes room; with none finished the store is full", async () => {
    const store = new AsyncStore({ maxRecords: 2 });
    const a = startGated(store);
    const b = startGated(store);
    a.gate.resolve(ok(1));
    await a.run.whenTerminal();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const c = startGated(store);
    assert.equal(store.get(a.run.id), undefined);
    assert.equal(store.get(b.run.id), b.run);
    assert.equal(store.get(c.run.id), c.run);
    const d = store.start({ how: { kind: "job" }, session: null, toolName: "t", execute: () => new Promise(() => {}) });
    assert.equal(!d.ok && d.reason, "full");
  });

  test("tasksOf lists one session's tasks in creation order, a page at a time", () => {
    const store = new AsyncStore();
    const s1 = new Session("s1", 0);
    const s2 = new Session("s2", 0);
    const task = { kind: "task", form: "mcp" } as const;
    const mine = [1, 2, 3].map(() => startGated(store, { how: task, session: s1 }).run);
    startGated(store, { how: task, session: s2 });
    startGated(store, { session: s1 });
    const first = store.tasksOf("s1", 0, 2);
    assert.deepEqual(first.tasks, mine.slice(0, 2));
    assert.equal(first.more, true);
    const second = store.tasksOf("s1", first.tasks[1]!.seq, 2);
    assert.deepEqual(second.tasks, mine.slice(2));
    assert.equal(second.more, false);
  });

  test("a session's end cancels and forgets its tasks, not its jobs", () => {
    const store = new AsyncStore();
    const session = new Session("s1", 0);
    const task = startGated(store, { how: { kind: "task", form: "seed" }, session });
    startGated(store, { how: { kind: "task", form: "mcp" }, session });
    const job = startGated(store, { session });
    session.end();
    assert.equal(task.run.status, "cancelled");
    assert.equal(task.seen.signal?.aborted, true);
    assert.equal(store.get(task.run.id), undefined);
    assert.equal(store.get(job.run.id), job.run);
    assert.equal(job.run.status, "working");
  });

  test("delete cancels a live run; close cancels everything", () => {
    const store = new AsyncStore();
    const a = startGated(store);
    const b = startGated(store);
    store.delete(a.run.id);
    store.delete("missing");
    assert.equal(a.run.status, "cancelled");
    assert.equal(store.get(a.run.id), undefined);
    store.close();
    assert.equal(b.run.status, "cancelled");
    assert.equal(store.get(b.run.id), b.run, "records stay readable until their TTL");
  });
});
