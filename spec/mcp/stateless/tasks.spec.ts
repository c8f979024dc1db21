import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkTasksMethod,
  createTaskResult,
  detailedTask,
  taskAck,
  taskDispatch,
  taskNotification,
  tasksNegotiated,
  unknownTask,
  type TaskSnapshot,
} from "../../../lib/mcp/stateless/tasks.ts";
import { EXTENSION } from "../../../lib/mcp/extension-ids.ts";

const WITH = { extensions: { [EXTENSION.tasks]: {} } };
const base: TaskSnapshot = { taskId: "t1", status: "working", createdAt: 0, updatedAt: 1500, ttlMs: 60_000.4, pollIntervalMs: 250 };

test("the extension is negotiated per request, under extensions", () => {
  assert.equal(tasksNegotiated(WITH), true);
  for (const caps of [{}, { tasks: {} }, { extensions: [] }, { extensions: { [EXTENSION.tasks]: true } }]) assert.equal(tasksNegotiated(caps), false);
  assert.equal(checkTasksMethod(WITH), null);
  assert.deepEqual(checkTasksMethod({})?.data, { requiredCapabilities: { extensions: { [EXTENSION.tasks]: {} } } });
  assert.deepEqual(unknownTask().code, -32602);
});

test("the tool's registration decides; a tool that needs tasks refuses clients without them", () => {
  assert.deepEqual(taskDispatch("optional", WITH), { kind: "task" });
  assert.deepEqual(taskDispatch("optional", {}), { kind: "inline" });
  assert.deepEqual(taskDispatch("forbidden", WITH), { kind: "inline" });
  assert.deepEqual(taskDispatch("required", WITH), { kind: "task" });
  const refused = taskDispatch("required", {});
  assert.equal(refused.kind === "refuse" && refused.error.code, -32021);
});

test("CreateTaskResult is flat, integer-timed and without result, error or requestState", () => {
  const created = createTaskResult(base);
  assert.deepEqual(created, {
    resultType: "task",
    taskId: "t1",
    status: "working",
    createdAt: "1970-01-01T00:00:00.000Z",
    lastUpdatedAt: "1970-01-01T00:00:01.500Z",
    ttlMs: 60_000,
    pollIntervalMs: 250,
  });
  for (const key of ["task", "result", "error", "requestState", "ttl", "pollInterval"]) assert.equal(key in created, false, key);
});

test("tasks/get inlines the result when completed, the error when failed, the questions when waiting", () => {
  assert.deepEqual(detailedTask({ ...base, statusMessage: "busy" }), { ...createTaskResult(base), resultType: "complete", statusMessage: "busy" });
  const result = { content: [{ type: "text", text: "ok" }], isError: true, _meta: { "io.modelcontextprotocol/related-task": { taskId: "t1" } } };
  const done = detailedTask({ ...base, status: "completed", result });
  assert.deepEqual(done.result, { content: [{ type: "text", text: "ok" }], isError: true });
  const keep = detailedTask({ ...base, status: "completed", result: { content: [], _meta: { "io.modelcontextprotocol/related-task": {}, mine: 1 } } });
  assert.deepEqual(keep.result, { content: [], _meta: { mine: 1 } });
  const plain = { content: [], _meta: { mine: 1 } };
  assert.equal(detailedTask({ ...base, status: "completed", result: plain }).result, plain);
  const failed = detailedTask({ ...base, status: "failed", error: { code: -32603, message: "boom" } });
  assert.deepEqual([failed.error, "result" in failed], [{ code: -32603, message: "boom" }, false]);
  assert.deepEqual(detailedTask({ ...base, status: "failed" }).error, { code: -32603, message: "Task failed" });
  const ask = { method: "elicitation/create" as const, params: { message: "sure?" } };
  assert.deepEqual(detailedTask({ ...base, status: "input_required", inputRequests: { k1: ask } }).inputRequests, { k1: ask });
  assert.equal("inputRequests" in detailedTask({ ...base, status: "cancelled", inputRequests: { k1: ask } }), false);
  assert.equal("requestState" in done, false);
});

test("acks are empty; notifications carry id, status and any terminal payload", () => {
  assert.deepEqual(taskAck(), { resultType: "complete" });
  assert.deepEqual(taskNotification(base), { taskId: "t1", status: "working" });
  assert.deepEqual(taskNotification({ ...base, status: "completed", result: { content: [] } }), { taskId: "t1", status: "completed", result: { content: [] } });
  assert.deepEqual(taskNotification({ ...base, status: "failed", error: { code: 1, message: "x" } }), {
    taskId: "t1",
    status: "failed",
    error: { code: 1, message: "x" },
  });
});
