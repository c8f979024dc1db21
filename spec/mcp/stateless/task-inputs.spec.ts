import { test } from "node:test";
import assert from "node:assert/strict";
import { TaskInputs } from "../../../lib/mcp/stateless/task-inputs.ts";
import { MissingCapabilityError, ReplayRound, RoundEndedError, type InputRequest } from "../../../lib/mcp/stateless/input-required.ts";

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

test("answered() says whether the next question is answered from the round, without counting it", async () => {
  const caps = { elicitation: {} };
  const round = new ReplayRound({ "elicitation-1": { action: "accept" }, named: { action: "decline" } }, caps);
  assert.equal(round.answered("elicitation/create"), true);
  assert.equal(round.answered("elicitation/create"), true, "peeking does not use up a key");
  assert.equal(round.answered("elicitation/create", "named"), true);
  assert.equal(round.answered("elicitation/create", "other"), false);
  assert.deepEqual(await round.ask(confirm), { action: "accept" });
  assert.equal(round.answered("elicitation/create"), false, "elicitation-2 has no answer");
});

test("a question still parked when its round ends is refused, so the abandoned handler settles", async () => {
  const caps = { elicitation: {} };
  const round = new ReplayRound({}, caps);
  let asked!: Promise<unknown>;
  const outcome = await round.run(async () => {
    asked = round.ask(confirm, "user_name");
    return asked;
  });
  assert.equal(outcome.kind, "input_required");
  await assert.rejects(asked, RoundEndedError);
  await assert.rejects(round.ask(confirm, "late"), RoundEndedError);
  // An answered question still answers after the end (a task that gathered input replays it).
  const answered = new ReplayRound({ a: { action: "accept" } }, caps);
  await answered.run(async () => 1);
  assert.deepEqual(await answered.ask(confirm, "a"), { action: "accept" });
});
