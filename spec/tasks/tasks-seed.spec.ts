// Seed-form tasks end to end over HTTP:
// creation fields, every tasks/* answer, session binding, and expiry on an injected clock.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { openEvents } from "../helpers/rpc.ts";
import { serveFixture } from "./fixture-server.ts";
import type { AsyncOptions } from "../../lib/index.ts";
import { jobOf, manualClock, RpcClient } from "./harness.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const SEED_CAPS = { extensions: { [TASKS]: {} } };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const serve = (t: { after(fn: () => unknown): void }, options: AsyncOptions = {}) => serveFixture(t, SEED_CAPS, options);

describe("seed-form tasks", () => {
  test("creation carries exactly the seed fields", async (t) => {
    const { client } = await serve(t);
    const created = await client.result("tools/call", { name: "gated", arguments: { key: "a" } });
    assert.deepEqual(Object.keys(created), ["resultType", "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"]);
    assert.equal(created.resultType, "task");
    assert.equal(created.status, "working");
    assert.match(created.createdAt, ISO);
    assert.equal(created.lastUpdatedAt, created.createdAt);
    assert.equal(created.ttlMs, 3_600_000);
    assert.equal(created.pollIntervalMs, 1000);
    assert.match(created.taskId, /^[0-9a-f-]{36}$/);
  });

  test("working → completed: tasks/get answers the status, then the tools/call result", async (t) => {
    const { client, gates } = await serve(t);
    const { taskId } = await client.result("tools/call", { name: "gated", arguments: { key: "a" } });
    await gates.started("a");
    const working = await client.result("tasks/get", { taskId, _meta: { "io.modelcontextprotocol/clientCapabilities": SEED_CAPS } });
    assert.deepEqual(working, { resultType: "complete", taskId, status: "working", statusMessage: "The operation is in progress." });
    gates.gate("a").resolve({ total: 6 });
    const done = await client.result("tasks/get", { taskId });
    assert.deepEqual(done, {
      resultType: "complete",
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: '{"total":6}' }], isError: false, structuredContent: { total: 6 } },
    });
    assert.deepEqual(await client.result("tasks/update", { taskId }), { resultType: "complete" });
  });

  test("working → failed: a handler that throws gives error -32603 with its message", async (t) => {
    const { client } = await serve(t);
    const { taskId } = await client.result("tools/call", { name: "fails", arguments: {} });
    const failed = await client.result("tasks/result", { taskId }).then(() => client.result("tasks/get", { taskId }));
    assert.deepEqual(failed, { resultType: "complete", taskId, status: "failed", error: { code: -32603, message: "boom" } });
  });

  test("bad arguments are refused at once (-32602), before any task exists", async (t) => {
    const { client } = await serve(t);
    const refused = await client.call("tools/call", { name: "gated", arguments: {} });
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /^Invalid arguments/);
    assert.deepEqual((await client.result("tasks/list")).tasks, [], "no task was made");
  });

  test("tasks/cancel aborts the handler's signal and answers cancelled; a terminal task refuses (-32602)", async (t) => {
    const { client, gates } = await serve(t);
    const { taskId } = await client.result("tools/call", { name: "watcher", arguments: { key: "w" } });
    await gates.started("w");
    const cancelled = await client.result("tasks/cancel", { taskId });
    assert.deepEqual(cancelled, { resultType: "complete", taskId, status: "cancelled", statusMessage: "The task was cancelled by request." });
    await gates.aborted("w");
    // The handler ignores its signal and finishes anyway: the task stays cancelled.
    gates.gate("w").resolve("late");
    assert.equal((await client.result("tasks/get", { taskId })).status, "cancelled");
    const again = await client.call("tasks/cancel", { taskId });
    assert.equal(again.error.code, -32602);
    assert.equal(again.error.message, "Cannot cancel task: already in terminal status 'cancelled'");
  });

  test("the capability can come with the call's _meta instead of initialize", async (t) => {
    const { running } = await serve(t);
    const client = new RpcClient(running.url);
    await client.initialize();
    const meta = { "io.modelcontextprotocol/clientCapabilities": SEED_CAPS };
    const created = await client.result("tools/call", { name: "gated", arguments: { key: "m" }, _meta: meta });
    assert.equal(created.resultType, "task");
    const plain = await client.result("tools/call", { name: "gated", arguments: { key: "n" } });
    assert.equal(JSON.parse(plain.content[0].text).status, "running", "without it the same session gets a job");
  });

  test("a task belongs to its session: another session, or none, gets -32003", async (t) => {
    const { client, running } = await serve(t);
    const { taskId } = await client.result("tools/call", { name: "gated", arguments: { key: "s" } });
    const other = new RpcClient(running.url);
    await other.initialize(SEED_CAPS);
    const none = new RpcClient(running.url);
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel", "tasks/result"]) {
      for (const who of [other, none]) {
        const response = await who.call(method, { taskId });
        assert.deepEqual(response.error, { code: -32003, message: "Task is not available in this session" }, `${method}`);
      }
    }
    assert.equal((await client.result("tasks/get", { taskId })).status, "working", "still there for its owner");
  });

  test("get_job_result polls a task of its own session (MCP Inspector's CLI asks for a task, then has no tasks/get)", async (t) => {
    const { running, gates } = await serve(t);
    const inspector = new RpcClient(running.url);
    await inspector.initialize(SEED_CAPS, "2025-06-18");
    const { taskId } = await inspector.result("tools/call", { name: "gated", arguments: { key: "i" } });
    await gates.started("i");
    const poll = async (who: RpcClient) => jobOf(await who.result("tools/call", { name: "get_job_result", arguments: { job_id: taskId } }));
    assert.deepEqual(await poll(inspector), { status: "running", job_id: taskId });
    // Another session never sees it, nor does REST (no session there).
    const other = new RpcClient(running.url);
    await other.initialize(SEED_CAPS);
    assert.deepEqual(await poll(other), { status: "not_found", job_id: taskId });
    const rest = await fetch(`${running.url}tools/get_job_result`, { method: "POST", body: JSON.stringify({ job_id: taskId }) });
    assert.deepEqual(await rest.json(), {
      result: JSON.stringify({ status: "not_found", job_id: taskId }),
      structuredContent: { status: "not_found", job_id: taskId },
    });
    gates.gate("i").resolve({ total: 6 });
    await inspector.result("tasks/result", { taskId });
    assert.deepEqual(await poll(inspector), { status: "done", job_id: taskId, result: { total: 6 } });
    assert.equal((await inspector.result("tasks/get", { taskId })).status, "completed", "the task stays for tasks/* until its TTL");
  });

  test("a task-capable call without a session fails with -32003", async (t) => {
    const { running } = await serve(t);
    const none = new RpcClient(running.url);
    const meta = { "io.modelcontextprotocol/clientCapabilities": SEED_CAPS };
    const response = await none.call("tools/call", { name: "gated", arguments: { key: "x" }, _meta: meta });
    assert.deepEqual(response.error, { code: -32003, message: "Task-capable async tool calls require an MCP session" });
  });

  test("unknown or malformed task ids are -32602", async (t) => {
    const { client } = await serve(t);
    assert.equal((await client.call("tasks/get", { taskId: "nope" })).error.code, -32602);
    assert.equal((await client.call("tasks/get", {})).error.code, -32602);
  });

  test("a finished task expires after its TTL (injected clock)", async (t) => {
    const clock = manualClock();
    const { client, gates } = await serve(t, { now: clock.now });
    const { taskId, createdAt } = await client.result("tools/call", { name: "gated", arguments: { key: "e" } });
    assert.equal(createdAt, new Date(clock.now()).toISOString());
    gates.gate("e").resolve(1);
    await client.result("tasks/result", { taskId });
    clock.advance(3_600_000 - 1);
    assert.equal((await client.result("tasks/get", { taskId })).status, "completed");
    clock.advance(1);
    const gone = await client.call("tasks/get", { taskId });
    assert.deepEqual(gone.error, { code: -32602, message: "Task not found" });
  });

  test("ending the session cancels its running tasks", async (t) => {
    const { client, gates, running } = await serve(t);
    await client.result("tools/call", { name: "watcher", arguments: { key: "d" } });
    await gates.started("d");
    const res = await fetch(`${running.url}mcp`, { method: "DELETE", headers: { "mcp-session-id": client.sessionId! } });
    assert.equal(res.status, 200);
    await gates.aborted("d");
    gates.gate("d").resolve(null);
  });

  test("progress and logging reach the session stream while the task runs", async (t) => {
    const { client, gates, running } = await serve(t);
    const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
    t.after(() => events.close());
    assert.equal((await events.next()).data, "", "the priming event");
    const { taskId } = await client.result("tools/call", { name: "watcher", arguments: { key: "p" }, _meta: { progressToken: "tok" } });
    const progress = JSON.parse((await events.next()).data);
    assert.deepEqual(progress, {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 1, total: 2, message: "half way" },
    });
    const log = JSON.parse((await events.next()).data);
    assert.deepEqual(log.params, { level: "info", data: "working on p" });
    gates.gate("p").resolve(3);
    const last = JSON.parse((await events.next()).data);
    assert.deepEqual(last.params, { progressToken: "tok", progress: 2, total: 2 });
    assert.equal((await client.result("tasks/get", { taskId })).status, "completed");
  });
});
