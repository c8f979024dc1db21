// Jobs for clients without task capability, over real HTTP: the immediate handle, every
// `get_job_result` answer, REST's bounded wait and 202, caps, and what turns the feature on.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { McpServer, type Logger } from "../../lib/index.ts";
import { post, rpc } from "../helpers/rpc.ts";
import { fixtureServer } from "./fixture-server.ts";
import { deferred, jobOf, RpcClient } from "./harness.ts";

async function serve(t: { after(fn: () => unknown): void }, options: Parameters<typeof fixtureServer>[0] = {}) {
  const { server, gates } = fixtureServer(options);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  return { server, gates, running, client: new RpcClient(running.url) };
}

const poll = async (client: RpcClient, jobId: string) => jobOf(await client.result("tools/call", { name: "get_job_result", arguments: { job_id: jobId } }));

describe("jobs over JSON-RPC", () => {
  test("the first async tool brings get_job_result, taskSupport, and the tasks extension and capability", async (t) => {
    const { client, running } = await serve(t);
    const { tools } = await client.result("tools/list");
    const names = tools.map((x: { name: string }) => x.name);
    assert.deepEqual(names, ["add", "gated", "get_job_result", "fails", "watcher", "asks"]);
    const poller = tools.find((x: { name: string }) => x.name === "get_job_result");
    assert.deepEqual(poller.inputSchema.required, ["job_id"]);
    assert.equal(poller.inputSchema.properties.job_id.type, "string");
    assert.equal(poller.execution, undefined);
    assert.deepEqual(tools.find((x: { name: string }) => x.name === "gated").execution, { taskSupport: "optional" });
    assert.equal(tools.find((x: { name: string }) => x.name === "add").execution, undefined);
    const init = (await client.initialize()).json.result;
    assert.deepEqual(init.capabilities.extensions["io.modelcontextprotocol/tasks"], {});
    assert.deepEqual(init.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const discovery: any = await (await fetch(`${running.url}.well-known/mcp.json`)).json();
    assert.deepEqual(discovery.capabilities.extensions["io.modelcontextprotocol/tasks"], {});
    const info: any = await (await fetch(running.url)).json();
    assert.equal(info.tools, 6);
  });

  test("without an async tool there is no get_job_result, no tasks capability, no tasks/* method", async (t) => {
    const server = new McpServer("plain");
    server.tool((a: number) => a, { name: "echo", inputSchema: { type: "object", properties: { a: { type: "number" } } } });
    const running = await server.listen({ port: 0 });
    t.after(() => running.close());
    const client = new RpcClient(running.url);
    const init = (await client.initialize()).json.result;
    assert.equal(init.capabilities.tasks, undefined);
    assert.equal(init.capabilities.extensions?.["io.modelcontextprotocol/tasks"], undefined);
    const { tools } = await client.result("tools/list");
    assert.deepEqual(
      tools.map((x: { name: string }) => x.name),
      ["echo"],
    );
    assert.equal((await client.call("tasks/get", { taskId: "x" })).error.code, -32601);
    const discovery: any = await (await fetch(`${running.url}.well-known/mcp.json`)).json();
    assert.equal(discovery.capabilities.extensions["io.modelcontextprotocol/tasks"], undefined);
  });

  test("running → done: the handle at once, then running, then the result once, then not_found", async (t) => {
    const { client, gates } = await serve(t);
    const started = await client.result("tools/call", { name: "gated", arguments: { key: "a" } });
    assert.equal(started.isError, false);
    assert.equal(started.content.length, 1);
    const handle = jobOf(started);
    assert.deepEqual(Object.keys(handle), ["status", "job_id", "message"]);
    assert.equal(handle.status, "running");
    // The tool names a model reads are stated, so a renaming relay can rename them (issue 34.1).
    assert.match(handle.message, /^Started `gated` in the background\. Call `get_job_result` with this job_id/);
    assert.deepEqual(started._meta, { "io.hubmcp/tool-refs": ["gated", "get_job_result"] });
    await gates.started("a");
    assert.deepEqual(await poll(client, handle.job_id), { status: "running", job_id: handle.job_id });
    gates.gate("a").resolve({ total: 6 });
    assert.deepEqual(await poll(client, handle.job_id), { status: "done", job_id: handle.job_id, result: { total: 6 } });
    assert.deepEqual(await poll(client, handle.job_id), { status: "not_found", job_id: handle.job_id });
  });

  test("a plain value comes back as itself, a list as a list", async (t) => {
    const { client, gates } = await serve(t);
    const a = jobOf(await client.result("tools/call", { name: "gated", arguments: { key: "n" } }));
    const b = jobOf(await client.result("tools/call", { name: "gated", arguments: { key: "l" } }));
    gates.gate("n").resolve(6);
    gates.gate("l").resolve([1, 2]);
    assert.equal((await poll(client, a.job_id)).result, 6);
    assert.deepEqual((await poll(client, b.job_id)).result, [1, 2]);
  });

  test("running → error: a handler that throws polls as error with its message", async (t) => {
    const { client } = await serve(t);
    const handle = jobOf(await client.result("tools/call", { name: "fails", arguments: {} }));
    assert.deepEqual(await poll(client, handle.job_id), { status: "error", job_id: handle.job_id, error: "boom" });
    assert.equal((await poll(client, handle.job_id)).status, "not_found");
  });

  test("bad arguments fail at once, without a job", async (t) => {
    const { client } = await serve(t);
    const result = await client.result("tools/call", { name: "gated", arguments: { key: 7 } });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^Invalid arguments: /);
    const missing = await client.result("tools/call", { name: "get_job_result", arguments: {} });
    assert.equal(missing.isError, true);
  });

  test("concurrent jobs finish in any order, each with its own result", async (t) => {
    const { client, gates } = await serve(t);
    const keys = ["j1", "j2", "j3"];
    const handles = await Promise.all(keys.map(async (key) => jobOf(await client.result("tools/call", { name: "gated", arguments: { key } }))));
    assert.equal(new Set(handles.map((h) => h.job_id)).size, 3);
    for (const key of [...keys].reverse()) gates.gate(key).resolve(key.toUpperCase());
    const polled = await Promise.all(handles.map((h) => poll(client, h.job_id)));
    assert.deepEqual(
      polled.map((p) => p.result),
      ["J1", "J2", "J3"],
    );
  });

  test("a task id polls like a job, from the session that owns the task only (issue 21.8)", async (t) => {
    const { client, running } = await serve(t);
    await client.initialize({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    const created = await client.result("tools/call", { name: "gated", arguments: { key: "t" } });
    assert.equal((await poll(client, created.taskId)).status, "running");
    const other = new RpcClient(running.url);
    await other.initialize({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    assert.equal((await poll(other, created.taskId)).status, "not_found");
  });

  test("live jobs are capped per session with a clear error", async (t) => {
    const { client } = await serve(t, { maxRunningPerSession: 1 });
    await client.initialize();
    assert.equal((await client.result("tools/call", { name: "gated", arguments: { key: "c1" } })).isError, false);
    const second = await client.result("tools/call", { name: "gated", arguments: { key: "c2" } });
    assert.equal(second.isError, true);
    assert.equal(second.content[0].text, "Too many running jobs in this session (limit 1); try again when one finishes");
  });

  test("stopping the server cancels live jobs; they poll as cancelled once", async (t) => {
    const { server, client, running, gates } = await serve(t);
    const handle = jobOf(await client.result("tools/call", { name: "watcher", arguments: { key: "w" } }));
    await gates.started("w");
    await running.close();
    await gates.aborted("w");
    const ask = () => server.handle(rpc(1, "tools/call", { name: "get_job_result", arguments: { job_id: handle.job_id } })) as Promise<any>;
    assert.deepEqual(jobOf((await ask()).result), { status: "cancelled", job_id: handle.job_id });
    assert.equal(jobOf((await ask()).result).status, "not_found");
  });
});

describe("async tools over POST /tools/<name>", () => {
  test("a run that ends within the wait answers like a synchronous tool", async (t) => {
    const { running, gates } = await serve(t);
    const reply = post(`${running.url}tools/gated`, { key: "r" });
    await gates.started("r");
    gates.gate("r").resolve({ x: 1 });
    const res = await reply;
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { result: '{"x":1}', structuredContent: { x: 1 } });
  });

  test("a failing run is 500 with its message; bad arguments are 400; a context-bearing one is 409", async (t) => {
    const { running } = await serve(t);
    const failed = await post(`${running.url}tools/fails`, {});
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.json, { error: "boom" });
    const bad = await post(`${running.url}tools/gated`, { key: 1 });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /^Invalid arguments/);
    assert.equal((await post(`${running.url}tools/watcher`, { key: "x" })).status, 409);
  });

  test("past the wait: 202 with a job id, polled through POST /tools/get_job_result", async (t) => {
    const { running, gates } = await serve(t, { restWaitMs: 1 });
    const res = await post(`${running.url}tools/gated`, { key: "slow" });
    assert.equal(res.status, 202);
    assert.deepEqual(Object.keys(res.json), ["status", "job_id"]);
    assert.equal(res.json.status, "running");
    const jobId = res.json.job_id;
    const first = await post(`${running.url}tools/get_job_result`, { job_id: jobId });
    assert.equal(first.status, 200);
    assert.deepEqual(first.json.structuredContent, { status: "running", job_id: jobId });
    gates.gate("slow").resolve(42);
    const done = await post(`${running.url}tools/get_job_result`, { job_id: jobId });
    assert.deepEqual(JSON.parse(done.json.result), { status: "done", job_id: jobId, result: 42 });
  });

  test("a client that hangs up before it gets a job id cancels the run", async (t) => {
    const cancelled = deferred<Record<string, unknown> | undefined>();
    const logger: Logger = {
      debug: (message, fields) => void (message === "async run cancelled" && cancelled.resolve(fields)),
      info() {},
      warn() {},
      error() {},
    };
    const { server, gates } = fixtureServer({}, logger);
    const running = await server.listen({ port: 0 });
    t.after(() => running.close());
    const controller = new AbortController();
    const reply = fetch(`${running.url}tools/gated`, { method: "POST", body: JSON.stringify({ key: "h" }), signal: controller.signal });
    await gates.started("h");
    controller.abort();
    await assert.rejects(reply);
    assert.equal((await cancelled.promise)?.tool, "gated");
    gates.gate("h").resolve(undefined);
  });

  test("REST calls beyond the total cap get 503", async (t) => {
    const { running } = await serve(t, { restWaitMs: 1, maxRunning: 1 });
    assert.equal((await post(`${running.url}tools/gated`, { key: "k1" })).status, 202);
    const full = await post(`${running.url}tools/gated`, { key: "k2" });
    assert.equal(full.status, 503);
    assert.match(full.json.error, /Too many running jobs on this server/);
    assert.equal(full.headers.get("retry-after"), "5");
  });
});
