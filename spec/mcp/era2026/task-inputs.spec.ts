import { test } from "node:test";
import assert from "node:assert/strict";
import { TaskInputs } from "../../../lib/mcp/era2026/task-inputs.ts";
import { MissingCapabilityError, ReplayRound, type InputRequest } from "../../../lib/mcp/era2026/input-required.ts";

const confirm: InputRequest = { method: "elicitation/create", params: { message: "Sure?", requestedSchema: { type: "object" } } };
const yes = { action: "accept", content: { confirm: true } };

test("a task's questions wait until tasks/update answers them, in parts", async () => {
  const changes: boolean[] = [];
  const inputs = new TaskInputs({ elicitation: {} }, () => changes.push(inputs.waiting));
  const both = Promise.all([inputs.ask(confirm), inputs.ask(confirm, "second")]);
  assert.deepEqual(Object.keys(inputs.pending()), ["input-1", "second"]);
  assert.deepEqual(inputs.answer({ "input-1": yes, unknown: { x: 1 } }), { ok: true, answered: ["input-1"] });
  assert.deepEqual(Object.keys(inputs.pending()), ["second"], "the answered key is removed");
  assert.equal(inputs.waiting, true);
  assert.deepEqual(inputs.answer({}), { ok: true, answered: [] });
  assert.deepEqual(inputs.answer({ second: yes }), { ok: true, answered: ["second"] });
  assert.deepEqual(await both, [yes, yes]);
  assert.equal(inputs.waiting, false);
  assert.deepEqual(changes, [true, true, true, false]);
});

test("bad answers are refused whole; unknown keys with bad values are ignored", async () => {
  const inputs = new TaskInputs({ elicitation: {} });
  void inputs.ask(confirm, "k");
  for (const bad of [null, [], 5, { k: 7 }]) {
    const result = inputs.answer(bad);
    assert.equal(!result.ok && result.error.code, -32602, JSON.stringify(bad));
  }
  assert.deepEqual(inputs.answer({ other: 7 }), { ok: true, answered: [] });
  assert.deepEqual(Object.keys(inputs.pending()), ["k"]);
});

test("close rejects every wait and later asks; capability and duplicate keys are checked", async () => {
  const inputs = new TaskInputs({ elicitation: {} });
  const waiting = inputs.ask(confirm, "k");
  await assert.rejects(inputs.ask(confirm, "k"), /already pending/);
  await assert.rejects(inputs.ask({ method: "roots/list", params: {} }), MissingCapabilityError);
  inputs.close(new Error("cancelled"));
  await assert.rejects(waiting, /cancelled/);
  await assert.rejects(inputs.ask(confirm), /cancelled/);
  assert.deepEqual(inputs.pending(), {});
  new TaskInputs({}).close(new Error("nothing waiting"));
});

test("gather first, then become a task: later questions go to the task's inputs", async () => {
  const caps = { elicitation: {} };
  let release!: () => void;
  const work = new Promise<void>((resolve) => (release = resolve));
  const tool = (round: ReplayRound) => async () => {
    const who = (await round.ask(confirm, "user_name")) as { content: { name: string } };
    await work;
    const again = (await round.ask(confirm, "late")) as { action: string };
    return `${who.content.name}:${again.action}`;
  };
  const inputs = new TaskInputs(caps);
  const first = new ReplayRound({}, caps);
  const r1 = await first.runOrPromote(tool(first), (req, key) => inputs.ask(req, key));
  assert.deepEqual(r1.kind === "input_required" && Object.keys(r1.inputRequests), ["user_name"]);
  const second = new ReplayRound({ user_name: { action: "accept", content: { name: "Ada" } } }, caps);
  const r2 = await second.runOrPromote(tool(second), (req, key) => inputs.ask(req, key));
  assert.ok(r2.kind === "working");
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(Object.keys(inputs.pending()), ["late"]);
  inputs.answer({ late: { action: "decline" } });
  assert.equal(await r2.done, "Ada:decline");
});

test("a handler that finishes or fails before the first turn settles like run", async () => {
  const quick = new ReplayRound({}, {});
  assert.deepEqual(await quick.runOrPromote(async () => 1, () => Promise.resolve()), { kind: "complete", value: 1 });
  const broken = new ReplayRound({}, {});
  await assert.rejects(broken.runOrPromote(async () => Promise.reject(new Error("early")), () => Promise.resolve()), /early/);
  // A promoted handler's later failure belongs to whoever holds `done`.
  const late = new ReplayRound({}, {});
  let fail!: (err: Error) => void;
  const outcome = await late.runOrPromote(() => new Promise<never>((_, reject) => (fail = reject)), () => Promise.resolve());
  assert.ok(outcome.kind === "working");
  fail(new Error("late"));
  await assert.rejects(outcome.done, /late/);
});
