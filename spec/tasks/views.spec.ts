// The four wire forms of one run (job, seed task, MCP 2025-11-25 task, 2026 extension task),
// checked as pure functions of a run driven by hand: no server, no transport, no clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AsyncRun, type RunKind } from "../../lib/tasks/run.ts";
import { HANDLE_META, jobStarted, jobStatus, mcpTask, seedCreated, seedTask, statelessTask, taskResult } from "../../lib/tasks/views.ts";
import { createTaskResult, detailedTask } from "../../lib/mcp/stateless/tasks.ts";
import { META } from "../../lib/mcp/extension-ids.ts";

const T0 = Date.UTC(2026, 6, 28, 12, 0, 0);
const ask = { method: "elicitation/create" as const, params: { message: "Sure?", requestedSchema: { type: "object" } } };

function runOf(how: RunKind, clock = () => T0 + 5): AsyncRun {
  return new AsyncRun({
    id: "r1",
    seq: 1,
    how,
    sessionId: null,
    toolName: "fit",
    now: T0,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    clock,
    clientCapabilities: { elicitation: {} },
  });
}

const STATELESS: RunKind = { kind: "task", form: "stateless" };

test("a working run in its four forms", () => {
  const run = runOf({ kind: "job" });
  assert.deepEqual(jobStatus("r1", run), { status: "running", job_id: "r1" });
  assert.deepEqual(jobStatus("nope", undefined), { status: "not_found", job_id: "nope" });
  assert.match(JSON.parse((jobStarted(run).content[0] as { text: string }).text).message, /get_job_result/);
  assert.deepEqual(seedTask(run), { resultType: "complete", taskId: "r1", status: "working", statusMessage: "The operation is in progress." });
  assert.deepEqual(seedCreated(run), {
    resultType: "task",
    taskId: "r1",
    status: "working",
    createdAt: "2026-07-28T12:00:00.000Z",
    lastUpdatedAt: "2026-07-28T12:00:00.000Z",
    ttlMs: 60_000,
    pollIntervalMs: 500,
  });
  assert.deepEqual(mcpTask(run), {
    taskId: "r1",
    status: "working",
    statusMessage: "The operation is in progress.",
    createdAt: "2026-07-28T12:00:00.000Z",
    lastUpdatedAt: "2026-07-28T12:00:00.000Z",
    ttl: 60_000,
    pollInterval: 500,
  });
  assert.deepEqual(statelessTask(run), { taskId: "r1", status: "working", createdAt: T0, updatedAt: T0, ttlMs: 60_000, pollIntervalMs: 500 });
  assert.equal(createTaskResult(statelessTask(run)).resultType, "task");
});

test("a completed run: the value for a job, the call result for every task form", () => {
  const run = runOf({ kind: "task", form: "mcp" });
  const result = { content: [{ type: "text" as const, text: "42" }], isError: false };
  run.handlerSettled({ result, value: 42 }, T0 + 10);
  assert.deepEqual(jobStatus("r1", run), { status: "done", job_id: "r1", result: 42 });
  assert.deepEqual(seedTask(run), { resultType: "complete", taskId: "r1", status: "completed", result });
  assert.equal(mcpTask(run).status, "completed");
  assert.equal(mcpTask(run).lastUpdatedAt, "2026-07-28T12:00:00.010Z");
  // The creation answer shows the run as it started, whatever it is now.
  assert.equal(mcpTask(run, true).status, "working");
  assert.deepEqual(taskResult(run), { ...result, _meta: { [META.relatedTask]: { taskId: "r1" } } });
  const snap = statelessTask(run);
  assert.equal(snap.status, "completed");
  assert.deepEqual(detailedTask(snap).result, result);
});

test("a tool error fails the run, but the 2026 form reports it as a completed task with isError", () => {
  const run = runOf(STATELESS);
  const result = { content: [{ type: "text" as const, text: "bad input file" }], isError: true };
  run.handlerSettled({ result, value: null }, T0 + 10);
  assert.equal(run.status, "failed");
  assert.deepEqual(jobStatus("r1", run), { status: "error", job_id: "r1", error: "bad input file" });
  assert.deepEqual(seedTask(run), { resultType: "complete", taskId: "r1", status: "failed", error: { code: -32603, message: "bad input file" } });
  assert.equal(mcpTask(run).statusMessage, "bad input file");
  const snap = statelessTask(run);
  assert.equal(snap.status, "completed");
  assert.equal(snap.error, undefined);
  assert.deepEqual(snap.result, result);
});

test("a protocol error is a field of the run: the 2026 form is a failed task carrying it", () => {
  const run = runOf(STATELESS);
  const result = { content: [{ type: "text" as const, text: "Backend down" }], isError: true };
  run.handlerSettled({ result, value: null, protocolError: { code: -32603, message: "Backend down" } }, T0 + 10);
  assert.deepEqual(run.protocolError, { code: -32603, message: "Backend down" });
  // Kept beside the result, not inside it (the state directory writes both).
  assert.deepEqual(run.settled, { result, value: null });
  const snap = statelessTask(run);
  assert.equal(snap.status, "failed");
  assert.deepEqual(detailedTask(snap).error, { code: -32603, message: "Backend down" });
  assert.equal(seedTask(run).status, "failed");
});

test("a 2026 task's pending questions are a field of the run: input_required lists them, an answer resumes", async () => {
  let now = T0;
  const run = runOf(STATELESS, () => (now += 1));
  assert.ok(run.inputs);
  const answer = run.inputs.ask(ask, "confirm");
  assert.equal(run.status, "input_required");
  const waiting = statelessTask(run);
  assert.deepEqual(waiting.inputRequests, { confirm: ask });
  assert.equal(waiting.updatedAt, T0 + 1);
  assert.deepEqual(detailedTask(waiting).inputRequests, { confirm: ask });
  assert.equal(mcpTask(run).status, "input_required");
  assert.deepEqual(run.inputs.answer({ confirm: { action: "accept" } }), { ok: true, answered: ["confirm"] });
  assert.deepEqual(await answer, { action: "accept" });
  assert.equal(statelessTask(run).status, "working");
  assert.equal(statelessTask(run).inputRequests, undefined);
  // Only stateless tasks hold questions: the others ask their session.
  assert.equal(runOf({ kind: "job" }).inputs, null);
});

test("cancelling ends the run in every form and refuses the questions still waiting", async () => {
  const run = runOf(STATELESS);
  const waiting = run.inputs!.ask(ask, "confirm");
  assert.equal(run.cancel(T0 + 20), true);
  await assert.rejects(waiting, /cancelled/);
  assert.equal(run.signal.aborted, true);
  assert.equal(jobStatus("r1", run).status, "cancelled");
  assert.equal(seedTask(run).status, "cancelled");
  assert.equal(mcpTask(run).statusMessage, "The task was cancelled by request.");
  assert.equal(statelessTask(run).status, "cancelled");
  assert.equal(taskResult(run).isError, true);
  // A cancelled run stays cancelled when its handler returns later.
  run.handlerSettled({ result: { content: [], isError: false }, value: 1 }, T0 + 30);
  assert.equal(statelessTask(run).status, "cancelled");
});

test("the handle a tool attached shows in every form; projecting changes nothing", () => {
  const run = runOf(STATELESS);
  assert.equal(run.setHandle({ slurm: 7 }, T0 + 1), true);
  assert.deepEqual(jobStatus("r1", run), { status: "running", job_id: "r1", handle: { slurm: 7 } });
  assert.deepEqual(seedTask(run)._meta, { [HANDLE_META]: { slurm: 7 } });
  assert.deepEqual(mcpTask(run)._meta, { [HANDLE_META]: { slurm: 7 } });
  assert.deepEqual(statelessTask(run).meta, { [HANDLE_META]: { slurm: 7 } });
  const before = [jobStatus("r1", run), seedTask(run), mcpTask(run), statelessTask(run)];
  assert.deepEqual([jobStatus("r1", run), seedTask(run), mcpTask(run), statelessTask(run)], before);
  assert.equal(run.updatedAt, T0 + 1);
});

test("a run cut off by a stop reads as failed with a protocol error in the 2026 form", () => {
  const run = runOf(STATELESS);
  assert.equal(run.cutOff(T0 + 3), true);
  assert.equal(statelessTask(run).status, "failed");
  assert.match(String(statelessTask(run).error?.message), /restarted/);
  assert.equal(jobStatus("r1", run).status, "error");
  assert.equal(run.cutOff(T0 + 4), false);
});
