// MCP 2025-11-25 tasks (basic/utilities/tasks) end to end over HTTP: CreateTaskResult,
// tasks/get, tasks/result with related-task _meta, tasks/list pages, tasks/cancel,
// tool-level negotiation, and input_required while the handler elicits.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { openEvents, post } from "../helpers/rpc.ts";
import { serveFixture } from "./fixture-server.ts";
import type { AsyncOptions } from "../../lib/index.ts";
import { RpcClient } from "./harness.ts";

const RELATED = "io.modelcontextprotocol/related-task";
const CAPS = { tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } }, elicitation: { form: {} } };

const serve = (t: { after(fn: () => unknown): void }, options: AsyncOptions = {}) => serveFixture(t, CAPS, options);

describe("MCP 2025-11-25 tasks", () => {
  test("a task-augmented call answers CreateTaskResult; the requested ttl is honoured", async (t) => {
    const { client } = await serve(t);
    const { task } = await client.result("tools/call", { name: "gated", arguments: { key: "a" }, task: { ttl: 60_000 } });
    assert.deepEqual(Object.keys(task), ["taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"]);
    assert.equal(task.status, "working");
    assert.equal(task.ttl, 60_000);
    assert.equal(task.pollInterval, 1000);
    const got = await client.result("tasks/get", { taskId: task.taskId });
    assert.deepEqual(got, task);
  });

  test("tasks/result waits for the end and returns the call result with the related-task _meta", async (t) => {
    const { client, gates } = await serve(t);
    const { task } = await client.result("tools/call", { name: "gated", arguments: { key: "r" }, task: {} });
    assert.equal(task.ttl, 3_600_000);
    await gates.started("r");
    const waiting = client.result("tasks/result", { taskId: task.taskId });
    gates.gate("r").resolve("six");
    assert.deepEqual(await waiting, { content: [{ type: "text", text: "six" }], isError: false, _meta: { [RELATED]: { taskId: task.taskId } } });
    const done = await client.result("tasks/get", { taskId: task.taskId });
    assert.equal(done.status, "completed");
    assert.ok(done.lastUpdatedAt >= done.createdAt);
  });

  test("a failing handler: status failed with its message; tasks/result is the isError result", async (t) => {
    const { client } = await serve(t);
    const { task } = await client.result("tools/call", { name: "fails", arguments: {}, task: {} });
    const result = await client.result("tasks/result", { taskId: task.taskId });
    assert.deepEqual(result, { content: [{ type: "text", text: "boom" }], isError: true, _meta: { [RELATED]: { taskId: task.taskId } } });
    const failed = await client.result("tasks/get", { taskId: task.taskId });
    assert.equal(failed.status, "failed");
    assert.equal(failed.statusMessage, "boom");
  });

  test("tasks/cancel: cancelled at once, the handler's signal aborts, tasks/result reports it, a second cancel is -32602", async (t) => {
    const { client, gates } = await serve(t);
    const { task } = await client.result("tools/call", { name: "watcher", arguments: { key: "c" }, task: {} });
    await gates.started("c");
    const waiting = client.result("tasks/result", { taskId: task.taskId });
    const cancelled = await client.result("tasks/cancel", { taskId: task.taskId });
    assert.equal(cancelled.status, "cancelled");
    assert.equal(cancelled.taskId, task.taskId);
    await gates.aborted("c");
    const result = await waiting;
    assert.equal(result.isError, true);
    assert.deepEqual(result._meta, { [RELATED]: { taskId: task.taskId } });
    assert.equal((await client.call("tasks/cancel", { taskId: task.taskId })).error.code, -32602);
    gates.gate("c").resolve(null);
  });

  test("tasks/list pages through the caller's tasks only", async (t) => {
    const { client, running } = await serve(t, { listPageSize: 2 });
    const ids: string[] = [];
    for (const key of ["l1", "l2", "l3"]) ids.push((await client.result("tools/call", { name: "gated", arguments: { key }, task: {} })).task.taskId);
    const other = new RpcClient(running.url);
    await other.initialize(CAPS);
    await other.result("tools/call", { name: "gated", arguments: { key: "o" }, task: {} });
    const first = await client.result("tasks/list");
    assert.deepEqual(
      first.tasks.map((x: { taskId: string }) => x.taskId),
      ids.slice(0, 2),
    );
    assert.equal(typeof first.nextCursor, "string");
    const second = await client.result("tasks/list", { cursor: first.nextCursor });
    assert.deepEqual(
      second.tasks.map((x: { taskId: string }) => x.taskId),
      ids.slice(2),
    );
    assert.equal(second.nextCursor, undefined);
    assert.equal((await other.result("tasks/list")).tasks.length, 1);
    assert.deepEqual(await new RpcClient(running.url).result("tasks/list"), { tasks: [] });
    const bad = await client.call("tasks/list", { cursor: "not-a-cursor" });
    assert.equal(bad.error.code, -32602);
  });

  test("a task request to a tool without task support is -32601; without a session it is -32003", async (t) => {
    const { client, running } = await serve(t);
    const sync = await client.call("tools/call", { name: "add", arguments: { a: 1, b: 2 }, task: {} });
    assert.equal(sync.error.code, -32601);
    const none = await new RpcClient(running.url).call("tools/call", { name: "gated", arguments: { key: "z" }, task: {} });
    assert.deepEqual(none.error, { code: -32003, message: "Task-capable async tool calls require an MCP session" });
    assert.deepEqual(await client.result("tools/call", { name: "add", arguments: { a: 1, b: 2 } }), { content: [{ type: "text", text: "3" }], isError: false });
  });

  test("task total cap: a clear JSON-RPC error", async (t) => {
    const { client } = await serve(t, { maxRunning: 1 });
    await client.result("tools/call", { name: "gated", arguments: { key: "k1" }, task: {} });
    const full = await client.call("tools/call", { name: "gated", arguments: { key: "k2" }, task: {} });
    assert.equal(full.error.code, -32603);
    assert.match(full.error.message, /Too many running jobs on this server \(limit 1\)/);
  });

  test("progress keeps the call's token and names its task", async (t) => {
    const { client, gates, running } = await serve(t);
    const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
    t.after(() => events.close());
    assert.equal((await events.next()).data, "", "the priming event");
    const { task } = await client.result("tools/call", { name: "watcher", arguments: { key: "p" }, task: {}, _meta: { progressToken: 7 } });
    const progress = JSON.parse((await events.next()).data);
    assert.deepEqual(progress.params, { progressToken: 7, progress: 1, total: 2, message: "half way", _meta: { [RELATED]: { taskId: task.taskId } } });
    assert.equal(JSON.parse((await events.next()).data).method, "notifications/message");
    // Once the task ends its messages stop: the late 2/2 of the cancelled task never arrives.
    await client.result("tasks/cancel", { taskId: task.taskId });
    gates.gate("p").resolve(null);
    await client.result("tools/call", { name: "watcher", arguments: { key: "q" }, task: {}, _meta: { progressToken: 8 } });
    const next = JSON.parse((await events.next()).data);
    assert.equal(next.params.progressToken, 8);
    gates.gate("q").resolve(null);
  });

  test("an eliciting handler puts its task in input_required until the answer arrives", async (t) => {
    const { client, gates, running } = await serve(t);
    const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
    t.after(() => events.close());
    assert.equal((await events.next()).data, "", "the priming event");
    const { task } = await client.result("tools/call", { name: "asks", arguments: { key: "e" }, task: {} });
    assert.equal(task.status, "working");
    await gates.started("e");
    const request = JSON.parse((await events.next()).data);
    assert.equal(request.method, "elicitation/create");
    assert.deepEqual(request.params._meta, { [RELATED]: { taskId: task.taskId } });
    assert.equal((await client.result("tasks/get", { taskId: task.taskId })).status, "input_required");
    const waiting = client.result("tasks/result", { taskId: task.taskId });
    const answer = { jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { name: "Ada" } } };
    assert.equal((await post(`${running.url}mcp`, answer, { "mcp-session-id": client.sessionId! })).status, 202);
    const result = await waiting;
    assert.equal(result.content[0].text, "hello Ada");
    assert.equal((await client.result("tasks/get", { taskId: task.taskId })).status, "completed");
  });
});
