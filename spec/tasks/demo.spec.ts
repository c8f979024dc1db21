// The demo's `slow_sum`: an async tool that reports progress and honours cancellation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { server } from "../../fixtures/demo/app.ts";
import { McpServer } from "../../lib/index.ts";
import { openEvents } from "../helpers/rpc.ts";
import { jobOf, RpcClient } from "./harness.ts";

test("slow_sum runs as a task, reports progress per value, and sums", async (t) => {
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize({ tasks: {} });
  const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
  t.after(() => events.close());
  assert.equal((await events.next()).data, "", "the priming event");
  const { task } = await client.result("tools/call", { name: "slow_sum", arguments: { values: "1, 2,3", delay: 0 }, task: {}, _meta: { progressToken: "s" } });
  const progress = [];
  for (let i = 0; i < 3; i++) progress.push(JSON.parse((await events.next()).data).params.progress);
  assert.deepEqual(progress, [1, 2, 3]);
  const result = await client.result("tasks/result", { taskId: task.taskId });
  assert.equal(result.content[0].text, "6");
});

test("slow_sum as a job: bad values are an error; shutdown cancels a long sum", async () => {
  const running = await server.listen({ port: 0 });
  const client = new RpcClient(running.url);
  const poll = async (id: string) => jobOf(await client.result("tools/call", { name: "get_job_result", arguments: { job_id: id } }));
  const bad = jobOf(await client.result("tools/call", { name: "slow_sum", arguments: { values: "1,x", delay: 0 } }));
  assert.deepEqual(await poll(bad.job_id), { status: "error", job_id: bad.job_id, error: "values must be comma-separated numbers, e.g. 1,2,3" });
  const long = jobOf(await client.result("tools/call", { name: "slow_sum", arguments: { delay: 600 } }));
  assert.equal((await poll(long.job_id)).status, "running");
  await running.close();
  const after = (await server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_job_result", arguments: { job_id: long.job_id } },
  })) as any;
  assert.equal(jobOf(after.result).status, "cancelled");
});

test("get_job_result is reserved once async tools exist", () => {
  const a = new McpServer("reserved-a");
  a.tool(() => 1, { name: "get_job_result", inputSchema: { type: "object" } });
  assert.throws(() => a.asyncTool(() => 1, { name: "slow", inputSchema: { type: "object" } }), /reserved/);
  const b = new McpServer("reserved-b");
  assert.throws(() => b.asyncTool(() => 1, { name: "get_job_result", inputSchema: { type: "object" } }), /reserved/);
  const c = new McpServer("reserved-c");
  c.asyncTool(() => 1, { name: "slow", inputSchema: { type: "object" } });
  assert.throws(() => c.tool(() => 1, { name: "get_job_result", inputSchema: { type: "object" } }), /already registered/);
  c.asyncTool(() => 2, { name: "slower", inputSchema: { type: "object" } });
});

test("a job sends no progress on its request's token: that request was answered with the job handle", async (t) => {
  const server = new McpServer("job-progress");
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  server.asyncTool(
    async function count(_args: Record<string, never>, ctx: import("../../lib/index.ts").ToolContext) {
      for (let i = 1; i <= 3; i++) ctx.reportProgress(i, 3);
      finished();
      return "counted";
    },
    { inputSchema: { type: "object" }, context: true },
  );
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize();
  const events = await openEvents(`${running.url}mcp`, { "mcp-session-id": client.sessionId! });
  t.after(() => events.close());
  assert.equal((await events.next()).data, "", "the priming event");
  const job = jobOf(await client.result("tools/call", { name: "count", arguments: {}, _meta: { progressToken: "job" } }));
  assert.equal(job.status, "running");
  // The caller asked for progress: the handle says it gets none, rather than leave it waiting.
  assert.match(job.message, /No progress is reported for a background job: this answer ends the request its progressToken belonged to\.$/);
  await done;
  // Anything the job had sent would be on the stream before this notice.
  server.tool(
    function later() {
      return 1;
    },
    { inputSchema: { type: "object" } },
  );
  assert.equal(JSON.parse((await events.next()).data).method, "notifications/tools/list_changed");
});

test("the TS SDK client with onprogress on a 2025-11-25 session without tasks is told a job reports no progress", async (t) => {
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new Client({ name: "progress-probe", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}mcp`)));
  t.after(() => client.close());
  const progress: unknown[] = [];
  const result = await client.callTool({ name: "slow_sum", arguments: { values: "1,2", delay: 0 } }, undefined, { onprogress: (p) => progress.push(p) });
  const handle = JSON.parse((result.content as { text: string }[])[0]!.text) as { status: string; message: string };
  assert.equal(handle.status, "running");
  assert.match(handle.message, /No progress is reported for a background job/);
  // Without onprogress the message stays as it was.
  const quiet = await client.callTool({ name: "slow_sum", arguments: { values: "1", delay: 0 } });
  assert.doesNotMatch((quiet.content as { text: string }[])[0]!.text, /progress/);
});
