// hub_bridge driven by the official SDK's stdio client, as a desktop host runs it, against
// the demo app and a second app behind a stand-in gateway: one tool passes through
// unchanged, two tools are prefixed and routed, and everything flows both ways.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { bridgeEnv, firstText, standInForFile } from "../bridge/shared-hub.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";

const hub = standInForFile();
const env = (tools: string, extra: Record<string, string> = {}) => bridgeEnv(hub, tools, extra);
const text = firstText;

test("one tool: its tools, resources, prompts and serverInfo appear unchanged", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo"));
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, "hubmcp-demo");
  assert.match(client.getInstructions() ?? "", /arithmetic and physics/);
  const tools = (await client.listTools()).tools;
  assert.deepEqual(
    tools.map((x) => x.name),
    ["add", "divide", "projectile", "slow_sum", "get_job_result", "ask_user"],
  );
  assert.deepEqual(tools.find((x) => x.name === "projectile")?._meta, { ui: { resourceUri: "ui://demo/plot" } });
  assert.deepEqual(
    (await client.listResources()).resources.map((r) => r.uri),
    ["config://demo/settings", "ui://demo/plot"],
  );
  assert.deepEqual(
    (await client.listPrompts()).prompts.map((p) => p.name),
    ["explain"],
  );
  assert.equal(text(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })), "5");
  const settings = await client.readResource({ uri: "config://demo/settings" });
  assert.match((settings.contents[0] as { text: string }).text, /"units":"SI"/);
});

test("two tools: names are prefixed, and every call, read and get reaches the right tool", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"));
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, "hub_bridge");
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.deepEqual(
    names.filter((n) => n.endsWith("_add")),
    ["mcpdemo_add", "lab_add"],
  );
  const tools = (await client.listTools()).tools;
  assert.deepEqual(tools.find((x) => x.name === "mcpdemo_projectile")?._meta, { ui: { resourceUri: "ui://mcpdemo/demo/plot" } });
  assert.equal(text(await client.callTool({ name: "mcpdemo_add", arguments: { a: 2, b: 3 } })), "5");
  assert.equal(text(await client.callTool({ name: "lab_add", arguments: { a: 2, b: 3 } })), "lab: 5");
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  assert.deepEqual(resources, ["config://mcpdemo/demo/settings", "ui://mcpdemo/demo/plot", "lab://lab/status"]);
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
  assert.deepEqual(templates, ["lab://lab/runs/{id}"]);
  const run = await client.readResource({ uri: "lab://lab/runs/7" });
  assert.deepEqual(
    run.contents.map((c) => [c.uri, (c as { text: string }).text]),
    [["lab://lab/runs/7", "run 7"]],
  );
  const plot = await client.readResource({ uri: "ui://mcpdemo/demo/plot" });
  assert.equal(plot.contents[0]?.uri, "ui://mcpdemo/demo/plot");
  assert.deepEqual(
    (await client.listPrompts()).prompts.map((p) => p.name),
    ["mcpdemo_explain", "lab_explain"],
  );
  const prompt = await client.getPrompt({ name: "lab_explain", arguments: { topic: "titration" } });
  assert.match((prompt.messages[0]!.content as { text: string }).text, /as a lab technician would/);
  await assert.rejects(client.callTool({ name: "nobody_add", arguments: {} }), /Unknown tool: nobody_add/);
  await assert.rejects(client.readResource({ uri: "lab://elsewhere/status" }), /Resource not found/);
});

test("elicitation, sampling and roots go from the tool to the host and back, through two hops", { timeout: 30_000 }, async (t) => {
  const caps = { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } };
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"), caps);
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { name: "Ada" } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: "assistant",
    content: { type: "text", text: "girders hum softly" },
    model: "spec-model",
  }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///data/a" }, { uri: "file:///data/b" }] }));
  await client.connect(transport);
  const [hello, haiku, roots] = await Promise.all([
    client.callTool({ name: "mcpdemo_ask_user", arguments: {} }),
    client.callTool({ name: "lab_haiku", arguments: {} }),
    client.callTool({ name: "lab_roots", arguments: {} }),
  ]);
  assert.equal(text(hello), "Hello, Ada!");
  assert.deepEqual(asked, ["What is your name?"]);
  assert.equal(text(haiku), "model said: girders hum softly");
  assert.equal(text(roots), "file:///data/a file:///data/b");
});

test("progress and logging notifications reach the host, logs under the tool's label", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"));
  const logs: Array<{ logger?: string; data: unknown }> = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push({ logger: n.params.logger, data: n.params.data }));
  await client.connect(transport);
  // The SDK drops a progress notification that arrives in the same read as its response
  // (it handles notifications a microtask later); collecting them here sees every one.
  const progress: Array<[unknown, number, number | undefined]> = [];
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push([n.params.progressToken, n.params.progress, n.params.total]));
  const result = await client.callTool({ name: "lab_chatty", arguments: { steps: 3 } }, CallToolResultSchema, { onprogress: () => {} });
  assert.equal(text(result), "did 3 steps");
  const token = progress[0]?.[0];
  assert.deepEqual(progress, [
    [token, 1, 3],
    [token, 2, 3],
    [token, 3, 3],
  ]);
  assert.deepEqual(
    logs,
    [1, 2, 3].map((i) => ({ logger: "lab/bench", data: `step ${i}` })),
  );
});

test("cancellation from the host reaches the tool; the other tool keeps working", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"));
  let waiting: () => void = () => {};
  const started = new Promise<void>((done) => (waiting = done));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.data === "waiting") waiting();
  });
  await client.connect(transport);
  const before = Number(text(await client.callTool({ name: "lab_cancelled_count", arguments: {} })));
  const abort = new AbortController();
  const call = client.callTool({ name: "lab_wait_for_cancel", arguments: {} }, CallToolResultSchema, { signal: abort.signal });
  await started;
  abort.abort("changed my mind");
  await assert.rejects(call);
  const after = await client.callTool({ name: "lab_cancelled_count", arguments: { at_least: before + 1 } });
  assert.equal(Number(text(after)), before + 1);
  assert.equal(text(await client.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 1 } })), "2");
});

test("an async tool runs as a task through the bridge", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"), { tasks: { requests: { tools: { call: {} } } } });
  await client.connect(transport);
  const stream = client.experimental.tasks.callToolStream({ name: "mcpdemo_slow_sum", arguments: { values: "1,2,3", delay: 0.05 } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  const kinds: string[] = [];
  let final: unknown;
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === "result") final = message.result;
    if (message.type === "error") throw message.error;
  }
  assert.equal(kinds[0], "taskCreated");
  assert.equal(text(final as Record<string, unknown>), "6");
});

test("several bridges started at once never interfere", { timeout: 30_000 }, async (t) => {
  const bridges = [1, 2, 3].map(() => spawnBridge(t, env("mcpdemo,lab")));
  await Promise.all(bridges.map((b) => b.client.connect(b.transport)));
  const sums = await Promise.all(bridges.map((b, i) => b.client.callTool({ name: "mcpdemo_add", arguments: { a: i, b: 10 } })));
  assert.deepEqual(sums.map(text), ["10", "11", "12"]);
});

test("two tools: a job's message names the tools as the host sees them, and following it works (issue 34.1)", { timeout: 30_000 }, async (t) => {
  const { client, transport } = spawnBridge(t, env("mcpdemo,lab"));
  await client.connect(transport);
  const names = (await client.listTools()).tools.map((x) => x.name);
  const started = await client.callTool({ name: "mcpdemo_slow_sum", arguments: { values: "1,2", delay: 0.05 } });
  const handle = JSON.parse(text(started)) as { job_id: string; message: string };
  assert.match(handle.message, /^Started `mcpdemo_slow_sum` in the background\. Call `mcpdemo_get_job_result` with this job_id/);
  assert.deepEqual(started._meta, { "io.hubmcp/tool-refs": ["mcpdemo_slow_sum", "mcpdemo_get_job_result"] });
  for (const named of handle.message.match(/`[^`]+`/g)!) assert.ok(names.includes(named.slice(1, -1)), `${named} is a listed tool`);
  let status = "running";
  while (status === "running") {
    const polled = JSON.parse(text(await client.callTool({ name: "mcpdemo_get_job_result", arguments: { job_id: handle.job_id } })));
    status = polled.status;
    if (status === "done") assert.equal(polled.result, 3);
  }
  assert.equal(status, "done");
});
