import { test } from "node:test";
import assert from "node:assert/strict";
import {
  capabilityFor,
  clientSupports,
  INPUT_REQUIRED_METHODS,
  inputRequiredResult,
  mergeAnswers,
  MissingCapabilityError,
  parseInputResponses,
  ReplayRound,
  type InputRequest,
} from "../../../lib/mcp/stateless/input-required.ts";

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const askName: InputRequest = { method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object" } } };
const askModel: InputRequest = { method: "sampling/createMessage", params: { messages: [], maxTokens: 10 } };
const askRoots: InputRequest = { method: "roots/list", params: {} };
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

test("a handler that asks nothing completes in one round", async () => {
  const round = new ReplayRound({}, {});
  assert.deepEqual(await round.run(async () => "done"), { kind: "complete", value: "done" });
});

test("an unanswered question ends the round with input_required; its answer completes the next", async () => {
  const handler = (round: ReplayRound) => async () => {
    const answer = (await round.ask(askName, "user_name")) as { content: { name: string } };
    return `Hello, ${answer.content.name}!`;
  };
  const first = new ReplayRound({}, ALL);
  const one = await first.run(handler(first));
  assert.deepEqual(one, { kind: "input_required", inputRequests: { user_name: askName }, answers: {} });
  const second = new ReplayRound(mergeAnswers(undefined, { user_name: accept({ name: "Ada" }), extra: {} }), ALL);
  assert.deepEqual(await second.run(handler(second)), { kind: "complete", value: "Hello, Ada!" });
});

test("questions asked together are gathered into one result, keyed by call order by default", async () => {
  const round = new ReplayRound({}, ALL);
  const outcome = await round.run(() => Promise.all([round.ask(askName), round.ask(askModel), round.ask(askRoots), round.ask(askName)]));
  assert.equal(outcome.kind, "input_required");
  assert.deepEqual(Object.keys(outcome.kind === "input_required" ? outcome.inputRequests : {}), ["elicitation-1", "sampling-1", "roots-1", "elicitation-2"]);
});

test("answers carry over rounds: a multi-step handler asks only the next question", async () => {
  const steps = (round: ReplayRound) => async () => {
    const a = (await round.ask(askName, "step1")) as { content: { name: string } };
    const b = (await round.ask(askName, "step2")) as { content: { color: string } };
    return `${a.content.name}/${b.content.color}`;
  };
  const r1 = new ReplayRound({}, ALL);
  const o1 = await r1.run(steps(r1));
  assert.deepEqual(o1.kind === "input_required" && Object.keys(o1.inputRequests), ["step1"]);
  const r2 = new ReplayRound(mergeAnswers(o1.kind === "input_required" ? o1.answers : {}, { step1: accept({ name: "Ada" }) }), ALL);
  const o2 = await r2.run(steps(r2));
  assert.ok(o2.kind === "input_required");
  assert.deepEqual(Object.keys(o2.inputRequests), ["step2"]);
  assert.deepEqual(o2.answers, { step1: accept({ name: "Ada" }) });
  // A recorded answer wins over a resent one: the client cannot rewrite history.
  const r3 = new ReplayRound(mergeAnswers(o2.answers, { step1: accept({ name: "Eve" }), step2: accept({ color: "red" }) }), ALL);
  assert.deepEqual(await r3.run(steps(r3)), { kind: "complete", value: "Ada/red" });
});

test("a question the client cannot answer rejects; uncaught it fails the round with -32021", async () => {
  const round = new ReplayRound({}, { sampling: {} });
  await assert.rejects(
    round.run(() => round.ask(askName)),
    (err: unknown) => {
      assert.ok(err instanceof MissingCapabilityError);
      assert.deepEqual(err.toBody(), { code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { elicitation: {} } } });
      return true;
    },
  );
  // Caught, the handler goes on and only what the client supports is asked.
  const polite = new ReplayRound({}, { sampling: {} });
  const outcome = await polite.run(() => Promise.allSettled([polite.ask(askName), polite.ask(askModel)]));
  assert.deepEqual(outcome.kind === "input_required" && Object.keys(outcome.inputRequests), ["sampling-1"]);
  const thrower = new ReplayRound({}, {});
  await assert.rejects(
    thrower.run(() => Promise.reject("plain")),
    /plain/,
  );
});

test("asking the same key twice in a round is a programming error", async () => {
  const round = new ReplayRound({}, ALL);
  await assert.rejects(
    round.run(async () => Promise.all([round.ask(askName, "k"), round.ask(askName, "k")])),
    /asked twice/,
  );
});

test("capabilities: bare elicitation means form; URL mode needs its own flag", () => {
  const url: InputRequest = { method: "elicitation/create", params: { mode: "url", url: "https://x", message: "m" } };
  assert.equal(clientSupports({ elicitation: {} }, askName), true);
  assert.equal(clientSupports({ elicitation: { form: {} } }, askName), true);
  assert.equal(clientSupports({ elicitation: { url: {} } }, askName), false);
  assert.equal(clientSupports({ elicitation: {} }, url), false);
  assert.equal(clientSupports({ elicitation: { url: {} } }, url), true);
  assert.equal(clientSupports({ elicitation: true }, askName), false);
  assert.equal(clientSupports({ sampling: {} }, askModel), true);
  assert.equal(clientSupports({}, askRoots), false);
  assert.deepEqual([askName, url, askModel, askRoots].map(capabilityFor), [{ elicitation: {} }, { elicitation: { url: {} } }, { sampling: {} }, { roots: {} }]);
});

test("inputResponses must be an object of objects", () => {
  assert.deepEqual(parseInputResponses(undefined), { ok: true, responses: {} });
  assert.deepEqual(parseInputResponses({ a: {} }), { ok: true, responses: { a: {} } });
  for (const bad of [null, 5, [], { user_name: 12345 }, { a: null }]) {
    const parsed = parseInputResponses(bad);
    assert.equal(!parsed.ok && parsed.error.code, -32602, JSON.stringify(bad));
  }
});

test("the wire result names input_required and carries requestState only when given", () => {
  assert.deepEqual(inputRequiredResult({ k: askRoots }), { resultType: "input_required", inputRequests: { k: askRoots } });
  assert.deepEqual(inputRequiredResult({}, "s"), { resultType: "input_required", inputRequests: {}, requestState: "s" });
  assert.deepEqual([...INPUT_REQUIRED_METHODS].sort(), ["prompts/get", "resources/read", "tools/call"]);
});
