// The Bridge in-process against the demo and lab apps behind the stand-in gateway: the
// routes a desktop host uses less often (completion, subscriptions, log levels, tasks),
// id mapping of the tool's own requests, and bad input from the host.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bridge } from "../../lib/bridge/bridge.ts";
import { readBridgeConfig } from "../../lib/bridge/config.ts";
import { standInForFile } from "./shared-hub.ts";

type Message = Record<string, any>;

const hub = standInForFile();

const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };

interface Host {
  bridge: Bridge;
  sent: Message[];
  logs: string[];
  request(method: string, params?: Message): Promise<Message>;
  /** Resolves with the first message the bridge sent that matches. */
  next(match: (m: Message) => boolean): Promise<Message>;
}

async function host(t: { after(fn: () => unknown): void }, tools: string, capabilities: Message = {}): Promise<Host> {
  const sent: Message[] = [];
  const logs: string[] = [];
  const waiters = new Set<{ match: (m: Message) => boolean; done: (m: Message) => void }>();
  const send = (m: unknown): void => {
    sent.push(m as Message);
    for (const w of waiters) if (w.match(m as Message)) waiters.delete(w), w.done(m as Message);
  };
  const config = readBridgeConfig({ HUB_TOKEN: hub.token, HUB_API: hub.url, HUB_TOOLS: tools });
  const bridge = new Bridge(config, send, { retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 1 }, log: (l) => logs.push(l), version: "9.9.9" });
  t.after(() => bridge.close());
  const next = (match: (m: Message) => boolean): Promise<Message> =>
    new Promise((done) => {
      const hit = sent.find(match);
      if (hit) return done(hit);
      waiters.add({ match, done });
    });
  let id = 100;
  const request = (method: string, params?: Message): Promise<Message> => {
    const mine = id++;
    bridge.receive({ jsonrpc: "2.0", id: mine, method, ...(params ? { params } : {}) });
    return next((m) => m.id === mine && !("method" in m));
  };
  const init = await request("initialize", { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "spec", version: "1" } });
  assert.ok(init.result, JSON.stringify(init));
  bridge.receive({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { bridge, sent, logs, request, next };
}

test("several tools: one merged initialize result under the bridge's own name", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  const init = h.sent.find((m) => m.id === 100)!.result;
  assert.deepEqual(init.serverInfo, { name: "hub_bridge", version: "9.9.9" });
  assert.equal(init.protocolVersion, "2025-11-25");
  assert.deepEqual(init.capabilities.tools, { listChanged: true });
  assert.equal(init.capabilities.resources.subscribe, true);
  assert.ok(init.capabilities.completions);
  assert.match(init.instructions, /^mcpdemo \(names prefixed mcpdemo_\): Small arithmetic.*\n\nlab \(names prefixed lab_\): A lab bench/s);
  assert.deepEqual((await h.request("ping")).result, {});
});

test("completion, subscriptions and log levels are routed by prompt name or URI", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  await h.request("prompts/list");
  await h.request("resources/templates/list");
  const byPrompt = await h.request("completion/complete", { ref: { type: "ref/prompt", name: "lab_explain" }, argument: { name: "topic", value: "t" } });
  assert.ok(byPrompt.result?.completion, JSON.stringify(byPrompt));
  const byTemplate = await h.request("completion/complete", {
    ref: { type: "ref/resource", uri: "lab://lab/runs/{id}" },
    argument: { name: "id", value: "1" },
  });
  assert.ok(byTemplate.result?.completion, JSON.stringify(byTemplate));
  const unknown = await h.request("completion/complete", { ref: { type: "ref/prompt", name: "nobody_explain" }, argument: { name: "x", value: "" } });
  assert.equal(unknown.error.code, -32602);
  assert.deepEqual((await h.request("resources/subscribe", { uri: "lab://lab/status" })).result, {});
  assert.deepEqual((await h.request("resources/unsubscribe", { uri: "lab://lab/status" })).result, {});
  assert.deepEqual((await h.request("logging/setLevel", { level: "warning" })).result, {});
  const quiet = await h.request("tools/call", { name: "lab_chatty", arguments: { steps: 1 } });
  assert.equal(quiet.result.content[0].text, "did 1 steps");
  assert.equal(h.sent.filter((m) => m.method === "notifications/message").length, 0, "info is below the level set");
});

test("tasks are routed to the tool that created them; unknown ones are refused", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  const created = await h.request("tools/call", { name: "mcpdemo_slow_sum", arguments: { values: "1,2", delay: 0.02 }, _meta: TASKS });
  const taskId = created.result.taskId as string;
  assert.equal(created.result.resultType, "task");
  // The relays' one id scheme: `<label>/<id>`, so tasks/* finds its tool with no table.
  assert.match(taskId, /^mcpdemo\/./);
  let task: Message;
  do task = (await h.request("tasks/get", { taskId, _meta: TASKS })).result;
  while (task.status === "working");
  assert.equal(task.status, "completed");
  assert.equal(task.result.content[0].text, "3");
  // A task's outcome is exposed as a direct call's is (URIs, stated tool names): the same result here.
  assert.equal((await h.request("tasks/result", { taskId, _meta: TASKS })).result.content[0].text, "3");
  assert.equal((await h.request("tasks/update", { taskId, _meta: TASKS })).result.result, undefined);
  const listed = await h.request("tasks/list", {});
  assert.ok(Array.isArray(listed.result.tasks));
  assert.ok(
    listed.result.tasks.some((listedTask: Message) => listedTask.taskId === taskId),
    "listed under its prefixed id",
  );
  assert.equal((await h.request("tasks/get", { taskId: "nope" })).error.message, "Unknown task");
  assert.equal((await h.request("tasks/get", { taskId: "other/1" })).error.message, "Unknown task");
});

test("a request the tool withdraws (elicitation timeout) is cancelled under the host-facing id", async (t) => {
  const h = await host(t, "mcpdemo,lab", { elicitation: { form: {} } });
  const reply = h.request("tools/call", { name: "mcpdemo_ask_user", arguments: { timeout: 0.2 } });
  const asked = await h.next((m) => m.method === "elicitation/create");
  // The relays' one id scheme (lib/federation/ids.ts): the tool's own id under its label.
  assert.match(asked.id, /^mcpdemo\/./);
  const withdrawn = await h.next((m) => m.method === "notifications/cancelled");
  assert.equal(withdrawn.params.requestId, asked.id);
  assert.match((await reply).result.content[0].text, /Could not ask for your name/);
  // A late answer to the withdrawn request goes nowhere and breaks nothing.
  h.bridge.receive({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "late" } } });
  assert.deepEqual((await h.request("ping")).result, {});
});

test("one tool: the bridge is transparent, the tool's requests keep the ids the tool gave them", async (t) => {
  const h = await host(t, "mcpdemo", { elicitation: { form: {} } });
  const reply = h.request("tools/call", { name: "ask_user", arguments: { timeout: 30 } });
  const asked = await h.next((m) => m.method === "elicitation/create");
  // Several tools would make it `mcpdemo/<id>`; one tool's own id reaches the host as it is, and the answer goes back under it.
  assert.ok(!String(asked.id).startsWith("mcpdemo/"), String(asked.id));
  h.bridge.receive({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ada" } } });
  assert.match((await reply).result.content[0].text, /Ada/);
});

test("closed input: a call still running is answered; the tool's questions to the host get an error at once", async (t) => {
  const h = await host(t, "mcpdemo,lab", { elicitation: { form: {} } });
  const asking = h.request("tools/call", { name: "mcpdemo_ask_user", arguments: { timeout: 30 } });
  await h.next((m) => m.method === "elicitation/create");
  const second = h.request("tools/call", { name: "mcpdemo_ask_user", arguments: { timeout: 30 } });
  await h.bridge.inputClosed();
  // Both calls were answered before inputClosed resolved: the pending question was refused,
  // and so was the one asked after the input closed (it may have been sent before or after).
  for (const reply of [await asking, await second]) assert.match(reply.result.content[0].text, /Could not ask for your name/);
});

test("a reply whose connection the tool server ends mid-call is resumed with Last-Event-ID", async (t) => {
  const h = await host(t, "lab");
  const reply = await h.request("tools/call", { name: "polled", arguments: {} });
  assert.equal(reply.result.content[0].text, "still answered");
  const logs = h.sent.filter((m) => m.method === "notifications/message").map((m) => m.params.data);
  assert.deepEqual(logs, ["before the break", "after the break"]);
});

test("a tool's list change reaches the host, and its new tool is callable under the prefix", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  const grown = await h.request("tools/call", { name: "lab_grow", arguments: {} });
  const name = grown.result.content[0].text as string;
  await h.next((m) => m.method === "notifications/tools/list_changed");
  const names = (await h.request("tools/list")).result.tools.map((x: Message) => x.name);
  assert.ok(names.includes(`lab_${name}`), names.join());
  assert.equal((await h.request("tools/call", { name: `lab_${name}`, arguments: {} })).result.content[0].text, name);
});

test("an async tool called without task capability answers a job, polled through the prefixed get_job_result", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  const started = await h.request("tools/call", { name: "mcpdemo_slow_sum", arguments: { values: "2,3", delay: 0.02 } });
  const job = JSON.parse(started.result.content[0].text);
  assert.equal(job.status, "running");
  let polled: Message;
  do polled = JSON.parse((await h.request("tools/call", { name: "mcpdemo_get_job_result", arguments: { job_id: job.job_id } })).result.content[0].text);
  while (polled.status === "running");
  assert.deepEqual([polled.status, polled.result], ["done", 5]);
});

test("bad input from the host gets a JSON-RPC error and never stops the bridge", async (t) => {
  const h = await host(t, "mcpdemo,lab");
  h.bridge.receive({ jsonrpc: "1.0", id: 5, method: "ping" });
  assert.equal((await h.next((m) => m.id === 5)).error.code, -32600);
  h.bridge.receive("not an object");
  h.bridge.receive({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12345 } });
  h.bridge.receive({ jsonrpc: "2.0", id: 777, result: {} });
  assert.equal((await h.request("no/such/method")).error.message, "Method not found: no/such/method");
  assert.equal((await h.request("tools/call", { name: 42 })).error.code, -32602);
  assert.equal((await h.request("prompts/get", { name: "nobody_explain" })).error.message, "Unknown prompt: nobody_explain");
  assert.equal((await h.request("resources/read", {})).error.code, -32002);
  assert.deepEqual((await h.request("ping")).result, {});
});

test("one tool: unknown methods and errors pass through from the tool as they are", async (t) => {
  const h = await host(t, "lab");
  const missing = await h.request("prompts/get", { name: "nope", arguments: {} });
  assert.equal(missing.error.code, -32602);
  const read = await h.request("resources/read", { uri: "lab://nope" });
  assert.equal(read.error.code, -32002);
  const method = await h.request("no/such/method");
  assert.equal(method.error.message, "Method not found: no/such/method");
});
