// MCP 2026-07-28 over real HTTP: stateless calls beside sessions, server/discover, the
// envelope and header checks, input_required rounds with a sealed requestState, logging
// by the request's own level, and subscriptions/listen.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { McpServer, type ToolContext } from "../../../lib/index.ts";
import { post, rpc } from "../../helpers/rpc.ts";

const V = "2026-07-28";
const NO_ARGS = { type: "object", properties: {} } as const;
const nameForm = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;

const server = new McpServer("era2026", {
  version: "1.2.3",
  cache: { methods: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } }, resources: { "data://one": { ttlMs: 5, cacheScope: "public" } } },
});
server.tool(({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
});
server.tool(
  async (_args: Record<string, never>, ctx: ToolContext) => {
    const answer = await ctx.elicit("Name?", nameForm, { key: "user_name" });
    return `Hello, ${answer.action === "accept" ? String(answer.content.name) : "stranger"}!`;
  },
  { name: "greet", inputSchema: NO_ARGS, context: true },
);
server.tool(
  (_args: Record<string, never>, ctx: ToolContext) => {
    ctx.debug("detail");
    ctx.warning("careful");
    return "logged";
  },
  { name: "noisy", inputSchema: NO_ARGS, context: true },
);
server.tool(({ region }: { region: string }) => `in ${region}`, {
  name: "regional",
  inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] },
});
let abandoned: AbortSignal | undefined;
server.tool(
  async (_args: Record<string, never>, ctx: ToolContext) => {
    abandoned = ctx.signal;
    await ctx.elicit("Name?", nameForm, { key: "user_name" });
    return "never without an answer";
  },
  { name: "watched", inputSchema: NO_ARGS, context: true },
);
server.resource("data://one", () => "one");

const running = await server.listen({ port: 0 });
after(() => running.close());
const mcp = `${running.url}mcp`;

const envelope = (caps: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": caps,
  ...extra,
});

/** A 2026 request with matching headers; `headers` override them. */
function call(id: number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const base: Record<string, string> = { accept: "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": method };
  if (name !== undefined) base["mcp-name"] = name;
  const withMeta = { ...params, _meta: { ...envelope(), ...((params._meta as Record<string, unknown>) ?? {}) } };
  return post(mcp, rpc(id, method, withMeta), { ...base, ...headers });
}

test("a 2026 tools/call is answered statelessly: no session minted, resultType and serverInfo on the result", async () => {
  const reply = await call(1, "tools/call", { name: "add", arguments: { a: 2, b: 3 } });
  assert.equal(reply.status, 200);
  assert.equal(reply.headers.get("mcp-session-id"), null);
  assert.equal(reply.json.id, 1);
  assert.equal(reply.json.result.resultType, "complete");
  assert.deepEqual(reply.json.result.content, [{ type: "text", text: "5" }]);
  assert.equal(reply.json.result._meta["io.modelcontextprotocol/serverInfo"].name, "era2026");
  // A session id sent along is ignored, not looked up.
  const stray = await call(2, "tools/call", { name: "add", arguments: { a: 1, b: 1 } }, { "mcp-session-id": "nope" });
  assert.equal(stray.status, 200);
});

test("server/discover reports the stateless versions, capabilities and caching hints", async () => {
  const reply = await call(1, "server/discover");
  assert.equal(reply.status, 200);
  const result = reply.json.result;
  assert.deepEqual(result.supportedVersions, [V]);
  assert.ok(result.capabilities.tools);
  assert.ok(result.capabilities.resources);
  assert.equal(result.ttlMs, 0);
  assert.equal(result.cacheScope, "private");
  assert.equal(result._meta["io.modelcontextprotocol/serverInfo"].version, "1.2.3");
});

test("an unsupported version is -32022 with the supported list and the requested one", async () => {
  const body = rpc(7, "server/discover", { _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } });
  const reply = await post(mcp, body, { "mcp-protocol-version": "2099-01-01", "mcp-method": "server/discover" });
  assert.equal(reply.status, 400);
  assert.equal(reply.json.id, 7);
  assert.equal(reply.json.error.code, -32022);
  assert.deepEqual(reply.json.error.data, { supported: [V], requested: "2099-01-01" });
});

test("headers that disagree with the body are -32020; a missing envelope key is -32602", async () => {
  const wrongName = await call(1, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }, { "mcp-name": "other" });
  assert.equal(wrongName.status, 400);
  assert.equal(wrongName.json.error.code, -32020);
  const wrongMethod = await call(2, "tools/list", {}, { "mcp-method": "prompts/list" });
  assert.equal(wrongMethod.json.error.code, -32020);
  const param = await call(3, "tools/call", { name: "regional", arguments: { region: "eu" } });
  assert.equal(param.json.error.code, -32020);
  const paramOk = await call(4, "tools/call", { name: "regional", arguments: { region: "eu" } }, { "mcp-param-region": "eu" });
  assert.equal(paramOk.json.result.content[0].text, "in eu");
  const bare = await post(mcp, rpc(5, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": V } }), {
    "mcp-protocol-version": V,
    "mcp-method": "tools/list",
  });
  assert.equal(bare.status, 400);
  assert.equal(bare.json.error.code, -32602);
});

test("removed and unknown methods are 404 with -32601", async () => {
  for (const method of ["initialize", "ping", "logging/setLevel", "no/such"]) {
    const reply = await call(1, method);
    assert.equal(reply.status, 404, method);
    assert.equal(reply.json.error.code, -32601, method);
  }
});

test("ctx.elicit becomes an input_required round; the retry with the answer completes; a tampered state is refused", async () => {
  const caps = { elicitation: {} };
  const first = await call(1, "tools/call", { name: "greet", arguments: {}, _meta: envelope(caps) });
  const round = first.json.result;
  assert.equal(round.resultType, "input_required");
  assert.equal(round.inputRequests.user_name.method, "elicitation/create");
  assert.equal(typeof round.requestState, "string");

  const answer = { user_name: { action: "accept", content: { name: "Ada" } } };
  const second = await call(2, "tools/call", { name: "greet", arguments: {}, inputResponses: answer, requestState: round.requestState, _meta: envelope(caps) });
  assert.equal(second.json.result.resultType, "complete");
  assert.equal(second.json.result.content[0].text, "Hello, Ada!");

  const state = round.requestState as string;
  // A character inside the sealed body (every one of its bits counts; the signature's last
  // character carries padding bits, so changing it may change nothing).
  const at = state.indexOf(".") + 5;
  const tampered = state.slice(0, at) + (state[at] === "A" ? "B" : "A") + state.slice(at + 1);
  const refused = await call(3, "tools/call", { name: "greet", arguments: {}, inputResponses: answer, requestState: tampered, _meta: envelope(caps) });
  assert.equal(refused.json.error.code, -32602);

  // The handler of a round that stopped at a question is told to stop.
  const watched = await call(5, "tools/call", { name: "watched", arguments: {}, _meta: envelope(caps) });
  assert.equal(watched.json.result.resultType, "input_required");
  assert.equal(abandoned?.aborted, true);

  // Without the capability the question cannot be asked: -32021 naming it.
  const noCaps = await call(4, "tools/call", { name: "greet", arguments: {} });
  assert.equal(noCaps.status, 400);
  assert.equal(noCaps.json.error.code, -32021);
  assert.deepEqual(noCaps.json.error.data.requiredCapabilities, { elicitation: {} });
});

test("log messages follow the request's _meta log level and are absent without one", async () => {
  const quiet = await call(1, "tools/call", { name: "noisy", arguments: {} });
  assert.equal(quiet.headers.get("content-type"), "application/json");
  assert.equal(quiet.json.result.content[0].text, "logged");
  const loud = await call(2, "tools/call", { name: "noisy", arguments: {}, _meta: envelope({}, { "io.modelcontextprotocol/logLevel": "info" }) });
  assert.match(loud.headers.get("content-type") ?? "", /text\/event-stream/);
  assert.match(loud.text, /careful/);
  assert.doesNotMatch(loud.text, /detail/);
});

test("caching hints come from the server's policy: per method, per resource, else always stale and private", async () => {
  const tools = (await call(1, "tools/list")).json.result;
  assert.deepEqual([tools.ttlMs, tools.cacheScope], [60_000, "public"]);
  const one = (await call(2, "resources/read", { uri: "data://one" })).json.result;
  assert.deepEqual([one.ttlMs, one.cacheScope, one.contents[0].text], [5, "public", "one"]);
  const prompts = (await call(3, "prompts/list")).json.result;
  assert.deepEqual([prompts.ttlMs, prompts.cacheScope], [0, "private"]);
  assert.throws(() => new McpServer("bad", { cache: { default: { ttlMs: -1, cacheScope: "public" } } }), /ttlMs/);
});

test("a missing resource is -32602 with data.uri", async () => {
  const reply = await call(1, "resources/read", { uri: "data://none" });
  assert.equal(reply.json.error.code, -32602);
  assert.equal(reply.json.error.data.uri, "data://none");
});

test("subscriptions/listen acknowledges first, then carries the list changes it asked for", async (t) => {
  const body = rpc("sub-1", "subscriptions/listen", {
    notifications: { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true },
    _meta: envelope(),
  });
  const reader = await postEvents(body);
  t.after(() => reader.close());
  const ack = JSON.parse((await reader.next()).data);
  assert.equal(ack.method, "notifications/subscriptions/acknowledged");
  assert.equal(ack.params._meta["io.modelcontextprotocol/subscriptionId"], "sub-1");
  server.tool(() => "later", { name: "later", inputSchema: NO_ARGS });
  const changed = JSON.parse((await reader.next()).data);
  assert.equal(changed.method, "notifications/tools/list_changed");
  assert.equal(changed.params._meta["io.modelcontextprotocol/subscriptionId"], "sub-1");
  // Removal at run time reaches listeners the same way, one notification per change.
  server
    .resource("data://later", () => "later")
    .resource("data://later/{id}", () => "t")
    .prompt(() => "p", { name: "later_prompt", arguments: [] });
  server.removeTool("later");
  server.removeResource("data://later");
  server.removeResourceTemplate("data://later/{id}");
  server.removePrompt("later_prompt");
  const seen: string[] = [];
  for (let i = 0; i < 7; i++) seen.push(JSON.parse((await reader.next()).data).method);
  const [tools, resources, prompts] = ["tools", "resources", "prompts"].map((l) => `notifications/${l}/list_changed`);
  assert.deepEqual(seen, [resources, resources, prompts, tools, resources, resources, prompts]);
});

/** POSTs `body` and reads the SSE reply event by event. */
async function postEvents(body: unknown): Promise<{ next(): Promise<{ data: string }>; close(): void }> {
  const ac = new AbortController();
  const res = await fetch(mcp, {
    method: "POST",
    signal: ac.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify(body),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trim())
            .join("\n");
          if (data) return { data };
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended");
        buffer += value;
      }
    },
    close() {
      ac.abort();
    },
  };
}

// The tasks extension ------------------------------------------------------------------
const tasksServer = new McpServer("era2026-tasks");
const gates: (() => void)[] = [];
tasksServer.asyncTool(
  async ({ word }: { word: string }, ctx: ToolContext) => {
    const answer = await ctx.elicit("Sure?", { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }, { key: "confirm" });
    await new Promise<void>((resolve) => gates.push(resolve));
    return answer.action === "accept" && answer.content.ok === true ? `yes ${word}` : `no ${word}`;
  },
  { name: "ask_then_wait", inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }, context: true },
);
tasksServer.asyncTool(() => "only as a task", { name: "task_only", inputSchema: NO_ARGS, taskSupport: "required" });
tasksServer.asyncTool(
  () => {
    throw Object.assign(new Error("Backend down"), { code: -32603 });
  },
  { name: "crashes", inputSchema: NO_ARGS },
);
tasksServer.asyncTool(
  async (_args: Record<string, never>, ctx: ToolContext) => {
    const who = await ctx.elicit("Name?", nameForm, { key: "user_name" });
    await new Promise<void>((resolve) => gates.push(resolve));
    return `worked for ${who.action === "accept" ? String(who.content.name) : "?"}`;
  },
  { name: "ask_first", inputSchema: NO_ARGS, context: true, taskSupport: "required", inputBeforeTask: true },
);
tasksServer.asyncTool(
  async (_args: Record<string, never>, ctx: ToolContext) => {
    ctx.setTaskMetadata({ queue: "short" });
    const who = await ctx.elicit("Name?", nameForm, { key: "user_name" });
    // Asked after the gathered answer: the handler is the task by now, so this waits in it.
    const sure = await ctx.elicit("Sure?", { type: "object", properties: { ok: { type: "boolean" } } }, { key: "confirm" });
    return `${who.action === "accept" ? String(who.content.name) : "?"}:${sure.action}`;
  },
  { name: "ask_then_confirm", inputSchema: NO_ARGS, context: true, taskSupport: "required", inputBeforeTask: true },
);
tasksServer.asyncTool(({ n }: { n: number }) => n, {
  name: "needs_n",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
});
const tasksRunning = await tasksServer.listen({ port: 0 });
after(() => tasksRunning.close());
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} }, elicitation: {} };

function taskCall(id: number, method: string, params: Record<string, unknown>, caps: Record<string, unknown> = TASKS) {
  const name = (params.name ?? params.taskId) as string | undefined;
  const headers: Record<string, string> = { accept: "application/json", "mcp-protocol-version": V, "mcp-method": method };
  if (name !== undefined) headers["mcp-name"] = name;
  return post(`${tasksRunning.url}mcp`, rpc(id, method, { ...params, _meta: envelope(caps) }), headers);
}

async function until(taskId: string, status: string): Promise<Record<string, any>> {
  for (;;) {
    const got = (await taskCall(9, "tasks/get", { taskId })).json.result;
    if (got.status === status) return got;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("tasks extension: a task waits for input, tasks/update answers it, tasks/get inlines the result", async () => {
  const created = (await taskCall(1, "tools/call", { name: "ask_then_wait", arguments: { word: "go" } })).json.result;
  assert.equal(created.resultType, "task");
  assert.equal(typeof created.taskId, "string");
  assert.equal(created.requestState, undefined);
  const waiting = await until(created.taskId, "input_required");
  assert.equal(waiting.inputRequests.confirm.method, "elicitation/create");
  const ack = await taskCall(2, "tasks/update", { taskId: created.taskId, inputResponses: { confirm: { action: "accept", content: { ok: true } } } });
  assert.equal(ack.json.result.resultType, "complete");
  while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
  gates.shift()!();
  const done = await until(created.taskId, "completed");
  assert.equal(done.result.content[0].text, "yes go");
  // Cancel is idempotent on an ended task; the Mcp-Name header must name the task.
  assert.equal((await taskCall(3, "tasks/cancel", { taskId: created.taskId })).json.result.resultType, "complete");
  const wrong = await post(`${tasksRunning.url}mcp`, rpc(4, "tasks/get", { taskId: created.taskId, _meta: envelope(TASKS) }), {
    "mcp-protocol-version": V,
    "mcp-method": "tasks/get",
    "mcp-name": "another",
  });
  assert.equal(wrong.json.error.code, -32020);
});

test("tasks extension: required tasks refuse clients without it; tasks methods need it; unknown ids are -32602", async () => {
  const refused = await taskCall(1, "tools/call", { name: "task_only", arguments: {} }, {});
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error.code, -32021);
  assert.deepEqual(refused.json.error.data.requiredCapabilities, { extensions: { "io.modelcontextprotocol/tasks": {} } });
  assert.equal((await taskCall(2, "tasks/get", { taskId: "x" }, {})).json.error.code, -32021);
  assert.equal((await taskCall(3, "tasks/get", { taskId: "x" })).json.error.code, -32602);
  for (const method of ["tasks/list", "tasks/result"]) assert.equal((await taskCall(4, method, {})).status, 404, method);
});

test("tasks extension: bad arguments are refused at once (-32602); no task is made", async () => {
  const refused = await taskCall(1, "tools/call", { name: "needs_n", arguments: { n: "six" } });
  assert.equal(refused.json.error.code, -32602);
  assert.match(refused.json.error.message, /^Invalid arguments: \/n: /);
  assert.equal((await taskCall(2, "tools/call", { name: "needs_n", arguments: { n: 6 } })).json.result.resultType, "task");
});

test("tasks extension: a handler error with a JSON-RPC code is a failed task carrying it", async () => {
  const created = (await taskCall(1, "tools/call", { name: "crashes", arguments: {} })).json.result;
  const failed = await until(created.taskId, "failed");
  assert.deepEqual(failed.error, { code: -32603, message: "Backend down" });
});

test("tasks extension: inputBeforeTask asks in rounds first, then the running handler becomes the task", async () => {
  const first = (await taskCall(1, "tools/call", { name: "ask_first", arguments: {} })).json.result;
  assert.equal(first.resultType, "input_required");
  assert.ok(first.inputRequests.user_name);
  const answers = { user_name: { action: "accept", content: { name: "Ada" } } };
  const second = (await taskCall(2, "tools/call", { name: "ask_first", arguments: {}, inputResponses: answers, requestState: first.requestState })).json.result;
  assert.equal(second.resultType, "task");
  assert.equal(second.requestState, undefined);
  while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
  gates.shift()!();
  const done = await until(second.taskId, "completed");
  assert.equal(done.result.content[0].text, "worked for Ada");
});

test("tasks extension: inputBeforeTask becomes the task at its first answered question; a later question waits in the task", async () => {
  const first = (await taskCall(1, "tools/call", { name: "ask_then_confirm", arguments: {} })).json.result;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(Object.keys(first.inputRequests), ["user_name"]);
  const answers = { user_name: { action: "accept", content: { name: "Ada" } } };
  const created = (await taskCall(2, "tools/call", { name: "ask_then_confirm", arguments: {}, inputResponses: answers, requestState: first.requestState })).json
    .result;
  assert.equal(created.resultType, "task");
  // The handle set before the handler became a task is the task's from the start.
  assert.deepEqual(created._meta["io.hubmcp/handle"], { queue: "short" });
  const waiting = await until(created.taskId, "input_required");
  assert.deepEqual(Object.keys(waiting.inputRequests), ["confirm"]);
  await taskCall(3, "tasks/update", { taskId: created.taskId, inputResponses: { confirm: { action: "decline" } } });
  const done = await until(created.taskId, "completed");
  assert.equal(done.result.content[0].text, "Ada:decline");
});

test("tasks extension: the tasks methods are in the table from the start and answer once an async tool exists", async () => {
  const late = new McpServer("era2026-late-tasks");
  late.tool(() => "sync", { name: "plain", inputSchema: NO_ARGS });
  const running = await late.listen({ port: 0 });
  after(() => running.close());
  const get = () =>
    post(`${running.url}mcp`, rpc(1, "tasks/get", { taskId: "t1", _meta: envelope(TASKS) }), {
      accept: "application/json",
      "mcp-protocol-version": V,
      "mcp-method": "tasks/get",
      "mcp-name": "t1",
    });
  const before = await get();
  assert.equal(before.status, 404);
  assert.equal(before.json.error.code, -32601);
  late.asyncTool(() => "later", { name: "later", inputSchema: NO_ARGS });
  const now = await get();
  assert.equal(now.json.error.code, -32602, "an unknown task, not an unknown method");
});
