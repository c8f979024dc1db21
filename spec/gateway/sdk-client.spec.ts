// The official TypeScript SDK client through the gateway to the demo app (an `app`
// revision, so start_mcp runs as a child): streamable HTTP with the API token as bearer,
// and the legacy SSE transport through the session proxy path with its cookie.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ElicitRequestSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { json, startHarness } from "./helpers.ts";
import { appUriOf, assertAppFound } from "../helpers/apps-host.ts";

const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const Any = z.object({}).passthrough();

async function untilTask(client: Client, taskId: string, done: (t: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const task = (await client.request({ method: "tasks/get", params: { taskId, _meta: TASKS } }, Any)) as Record<string, unknown>;
    if (done(task)) return task;
    // The task protocol is polling: the client asks again after the advertised interval.
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("SDK clients through the gateway to the demo app", { timeout: 90_000 }, async (t) => {
  // The app child runs without coverage: it compiles the library with other hooks than
  // this process, and merged coverage of differently compiled copies is skewed.
  const h = await startHarness(
    t,
    { tools: { mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } },
    { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } },
  );
  const mcpUrl = new URL(`${h.base}/api/mcp/mcpdemo/mcp`);
  const bearer = { Authorization: `Bearer ${h.tokens.alice}` };

  const client = new Client({ name: "gateway-spec", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
  const progress: number[] = [];
  let sawProgress: () => void = () => {};
  const threeProgress = new Promise<void>((r) => (sawProgress = r));
  client.setNotificationHandler(ProgressNotificationSchema, async (n) => {
    progress.push(n.params.progress);
    if (progress.length === 3) sawProgress();
  });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer } });
  await client.connect(transport);
  t.after(() => client.close());
  assert.match(transport.sessionId!, /^g1\./);

  await t.test("list and call, with structured output", async () => {
    const names = (await client.listTools()).tools.map((x) => x.name);
    for (const name of ["add", "projectile", "slow_sum", "ask_user"]) assert.ok(names.includes(name), name);
    const sum = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    assert.deepEqual(sum.content, [{ type: "text", text: "3" }]);
    const shot = await client.callTool({ name: "projectile", arguments: { speed: 10, angle: 45, g: 9.81 } });
    assert.equal((shot.structuredContent as { range_m: number }).range_m, 10.194);
  });

  await t.test("elicitation reaches the client and its answer the tool", async () => {
    const res = await client.callTool({ name: "ask_user", arguments: { timeout: 20 } });
    assert.deepEqual(res.content, [{ type: "text", text: "Hello, Ada!" }]);
  });

  await t.test("an async task with progress, bound to its session", async () => {
    const created = (await client.request(
      { method: "tools/call", params: { name: "slow_sum", arguments: { values: "1,2,3", delay: 0.3 }, _meta: { ...TASKS, progressToken: "sum-1" } } },
      Any,
    )) as { resultType: string; taskId: string };
    assert.equal(created.resultType, "task");
    const done = await untilTask(client, created.taskId, (x) => x.status === "completed");
    assert.deepEqual((done.result as { content: unknown }).content, [{ type: "text", text: "6" }]);
    await threeProgress;
    assert.deepEqual(progress, [1, 2, 3]);

    const stranger = new Client({ name: "other", version: "1" });
    await stranger.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: bearer } }));
    t.after(() => stranger.close());
    await assert.rejects(stranger.request({ method: "tasks/get", params: { taskId: created.taskId, _meta: TASKS } }, Any), /not available in this session/);
  });

  await t.test("cancellation: tasks/cancel stops a running task", async () => {
    const created = (await client.request(
      { method: "tools/call", params: { name: "slow_sum", arguments: { values: "1,2", delay: 60 }, _meta: TASKS } },
      Any,
    )) as { taskId: string };
    await client.request({ method: "tasks/cancel", params: { taskId: created.taskId, _meta: TASKS } }, Any);
    const task = await untilTask(client, created.taskId, (x) => x.status !== "working");
    assert.equal(task.status, "cancelled");
  });

  await t.test("a task-capable call without a session fails with the spec's message", async () => {
    const res = await fetch(mcpUrl, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow_sum", arguments: {}, _meta: TASKS } }),
    });
    const body = await json(res);
    assert.match(body.error.message, /Task-capable async tool calls require an MCP session/);
  });

  await t.test("resource URIs are the tool's own everywhere, so an MCP Apps host finds the App whatever it matches on (issue 34.3)", async () => {
    const { resources } = await client.listResources();
    const settings = resources.find((r) => r.uri.endsWith("config://demo/settings"));
    assert.equal(settings?.uri, "config://demo/settings");
    const read = await client.readResource({ uri: settings!.uri });
    assert.match(String((read.contents[0] as { text: string }).text), /"gravity":9.81/);
    const projectile = (await client.listTools()).tools.find((x) => x.name === "projectile")!;
    const app = assertAppFound(projectile, resources, await client.readResource({ uri: appUriOf(projectile)! }));
    assert.equal(app, "ui://demo/plot");
  });

  await t.test("SSEClientTransport via GET …/sse and the session proxy path", async () => {
    const info = await json(await fetch(`${h.base}/api/mcp/mcpdemo/sse`, { headers: bearer }));
    assert.match(info.sse_endpoint, new RegExp(`^${h.base}/weber/[0-9a-f]{32}/[0-9a-f]+/\\d+/sse$`));
    assert.match(info.cookie_header, /^hubmcp-session=[0-9a-f]{32}%3A[A-Za-z0-9_-]+$/);
    const withCookie = (url: string | URL, init?: RequestInit): Promise<Response> =>
      fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), cookie: info.cookie_header } });
    const legacy = new Client({ name: "sse-spec", version: "1" });
    await legacy.connect(new SSEClientTransport(new URL(info.sse_endpoint), { fetch: withCookie }));
    t.after(() => legacy.close());
    const sum = await legacy.callTool({ name: "add", arguments: { a: 2, b: 5 } });
    assert.deepEqual(sum.content, [{ type: "text", text: "7" }]);
    const denied = await fetch(info.sse_endpoint);
    assert.equal(denied.status, 401);
    await denied.text();
  });
});
