// The relay pieces hub_bridge and the hub connector share (lib/federation/moves.ts): lists
// read page by page to a bound, a request fanned out to every server, tasks merged, and a
// server's log lines and resource updates renamed into the one namespace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exposeNotification, exposeServerMessage, fanOut, listEvery, mergeTasks } from "../../lib/federation/moves.ts";

test("a list is read page by page until no cursor, and a cursor that never ends stops at the bound", async () => {
  const asked: unknown[] = [];
  const pages = await listEvery("prompts", async (method, params) => {
    asked.push([method, params]);
    return params.cursor === undefined ? { prompts: [{ name: "a" }, "junk"], nextCursor: "p2" } : { prompts: [{ name: "b" }], nextCursor: "" };
  });
  assert.deepEqual(pages, [{ name: "a" }, { name: "b" }]);
  assert.deepEqual(asked, [
    ["prompts/list", {}],
    ["prompts/list", { cursor: "p2" }],
  ]);
  let calls = 0;
  const endless = await listEvery("tools", async () => ({ tools: [{ name: `t${calls++}` }], nextCursor: "again" }));
  assert.equal(endless.length, 100);
});

test("a request fanned out keeps the answers that came, in order; tasks merge under the caller's names", async () => {
  const answers = await fanOut(["a", "b", "c"], async (server) => {
    if (server === "b") throw new Error("down");
    return server === "a" ? { tasks: [{ taskId: "1" }, { no: "id" }, 7] } : { tasks: "not a list" };
  });
  assert.deepEqual(
    answers.map((a) => a.server),
    ["a", "c"],
  );
  assert.deepEqual(
    mergeTasks(answers, (server, task) => ({ ...task, taskId: `${server}/${task.taskId}` })),
    { tasks: [{ taskId: "a/1" }] },
  );
});

test("a log line names its server and an updated resource gets its exposed URI; other notifications pass as they are", () => {
  const target = { label: "sim", tool: "sim" };
  assert.deepEqual(exposeNotification(target, "notifications/message", { level: "info", logger: "run" }), { level: "info", logger: "sim/run" });
  assert.deepEqual(exposeNotification(target, "notifications/message", { level: "info" }), { level: "info", logger: "sim" });
  assert.deepEqual(exposeNotification(target, "notifications/resources/updated", { uri: "ui://demo/plot" }), { uri: "ui://sim/demo/plot" });
  assert.deepEqual(exposeNotification(target, "notifications/resources/updated", { uri: 3 }), { uri: 3 });
  assert.deepEqual(exposeNotification(target, "notifications/progress", { progress: 1 }), { progress: 1 });
});

test("a server's messages as the caller of several sees them: request ids, withdrawals and tasks under the label", () => {
  const lab = { label: "lab", tool: "lab" };
  assert.deepEqual(exposeServerMessage(lab, { jsonrpc: "2.0", id: 7, method: "roots/list" }), { jsonrpc: "2.0", id: "lab/7", method: "roots/list" });
  assert.deepEqual(exposeServerMessage(lab, { jsonrpc: "2.0", id: "a", method: "elicitation/create", params: {} }), {
    jsonrpc: "2.0",
    id: 'lab/"a"',
    method: "elicitation/create",
    params: {},
  });
  const withdrawn = exposeServerMessage(lab, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "timeout" } });
  assert.deepEqual(withdrawn.params, { requestId: "lab/7", reason: "timeout" });
  const odd = exposeServerMessage(lab, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } });
  assert.deepEqual(odd.params, { requestId: null });
  const status = exposeServerMessage(lab, { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId: "t1", status: "working" } });
  assert.deepEqual(status.params, { taskId: "lab/t1", status: "working" });
  const bare = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  assert.equal(exposeServerMessage(lab, bare), bare);
  const log = exposeServerMessage(lab, { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "x" } });
  assert.equal((log.params as { logger: string }).logger, "lab/x");
});
