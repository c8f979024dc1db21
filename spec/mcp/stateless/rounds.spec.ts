import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createRequestStateCodec } from "../../../lib/mcp/stateless/request-state.ts";
import { bindingOf, runRound, type RoundRequest } from "../../../lib/mcp/stateless/rounds.ts";
import type { ReplayRound } from "../../../lib/mcp/stateless/input-required.ts";

const codec = createRequestStateCodec({ key: randomBytes(32) });
const ALL = { elicitation: {}, sampling: {} };
const form = (message: string) => ({ method: "elicitation/create" as const, params: { message, requestedSchema: { type: "object" } } });

/** A two-step tool, written as a ctx.elicit tool would be once wired to the round. */
let sideEffects = 0;
const twoSteps = (round: ReplayRound) => async () => {
  sideEffects++;
  const name = (await round.ask(form("Step 1"), "step1")) as { content: { name: string } };
  const color = (await round.ask(form("Step 2"), "step2")) as { content: { color: string } };
  return `${name.content.name} likes ${color.content.color}`;
};
const run = (request: RoundRequest) => runRound(codec, request, (round) => twoSteps(round)());
const call = (extra: Record<string, unknown> = {}): RoundRequest => ({
  method: "tools/call",
  params: { name: "steps", arguments: { n: 1 }, ...extra },
  clientCapabilities: ALL,
});
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

test("a tool asking twice completes over three rounds, carrying its answers in the sealed state", async () => {
  sideEffects = 0;
  const r1 = await run(call());
  assert.ok(r1.kind === "input_required");
  assert.deepEqual(Object.keys(r1.result.inputRequests as object), ["step1"]);
  assert.equal(r1.result.resultType, "input_required");
  const r2 = await run(call({ inputResponses: { step1: accept({ name: "Ada" }) }, requestState: r1.result.requestState }));
  assert.ok(r2.kind === "input_required");
  assert.deepEqual(Object.keys(r2.result.inputRequests as object), ["step2"]);
  assert.notEqual(r2.result.requestState, r1.result.requestState);
  // Round 3 answers only step2: step1 comes from the state.
  const r3 = await run(call({ inputResponses: { step2: accept({ color: "red" }) }, requestState: r2.result.requestState }));
  assert.deepEqual(r3, { kind: "complete", value: "Ada likes red" });
  assert.equal(sideEffects, 3, "the handler ran once per round: replay");
});

test("a tampered, foreign or misbound state is refused before the handler runs", async () => {
  const r1 = await run(call());
  assert.ok(r1.kind === "input_required");
  const token = String(r1.result.requestState);
  sideEffects = 0;
  const refusals = [
    call({ requestState: `${token}-TAMPERED`, inputResponses: { step1: accept({ name: "x" }) } }),
    call({ requestState: createRequestStateCodec().seal({ answers: {} }, bindingOf(call())) }),
    { ...call({ requestState: token }), params: { name: "steps", arguments: { n: 2 }, requestState: token } },
    { ...call({ requestState: token }), principal: "mallory" },
    call({ requestState: codec.seal({ answers: [] }, bindingOf(call())) }),
    call({ requestState: codec.seal("not a state", bindingOf(call())) }),
  ];
  for (const request of refusals) {
    const outcome = await run(request);
    assert.equal(outcome.kind === "error" && outcome.error.code, -32602);
  }
  assert.equal(sideEffects, 0);
});

test("invalid inputResponses are a protocol error; wrong keys ask again; extra keys are ignored", async () => {
  for (const inputResponses of [null, { step1: 12345 }]) {
    const outcome = await run(call({ inputResponses }));
    assert.equal(outcome.kind === "error" && outcome.error.code, -32602);
  }
  const wrong = await run(call({ inputResponses: { wrong_key: accept({}) } }));
  assert.ok(wrong.kind === "input_required");
  const extra = await run(call({ inputResponses: { step1: accept({ name: "Ada" }), step2: accept({ color: "blue" }), junk: accept({}) } }));
  assert.deepEqual(extra, { kind: "complete", value: "Ada likes blue" });
});

test("a missing capability that escapes is -32021; other handler errors are the caller's", async () => {
  const noElicitation = await runRound(codec, { ...call(), clientCapabilities: { sampling: {} } }, (round) => twoSteps(round)());
  assert.equal(noElicitation.kind === "error" && noElicitation.error.code, -32021);
  await assert.rejects(
    runRound(codec, call(), async () => Promise.reject(new Error("tool broke"))),
    /tool broke/,
  );
  assert.deepEqual(bindingOf({ ...call(), principal: "p" }).principal, "p");
});
