// The relay (lib/federation/relay.ts) over several real tool servers on loopback, each
// reached as a RelayServer (hub_bridge's bridge/upstream.ts, the production one): merged
// lists with the built-in search first, names and URIs resolved to their server, a server's
// request reaching the caller as `<label>/<id>` and the answer going back to that server,
// a cancellation reaching the server running the call under the server's own id, tasks
// routed by their prefixed id, and with one server nothing renamed at all.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter, on } from "node:events";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { requestKey } from "../../lib/federation/calls.ts";
import type { Relay } from "../../lib/federation/relay.ts";
import type { Upstream } from "../../lib/bridge/upstream.ts";
import { bridgeRelay } from "./two-relays.ts";

type Message = Record<string, any>;

const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };

/** A tool server whose tools say which server answered; `wait` resolves `aborted` when its call is cancelled. */
function toolServer(name: string, aborted: Array<() => void>): McpServer {
  const server = new McpServer(name, { version: "1", instructions: `The ${name} server.` });
  server.tool(
    function whoami() {
      return name;
    },
    { description: "Says which server answered." },
  );
  server.tool(async function ask(ctx: ToolContext) {
    /** Asks the user for a word. */
    const answer = await ctx.elicit<{ word: string }>("A word?", { type: "object", properties: { word: { type: "string" } }, required: ["word"] });
    return answer.action === "accept" ? `${name} heard ${answer.content.word}` : "no word";
  });
  server.tool(async function wait(ctx: ToolContext) {
    /** Waits until cancelled. */
    await new Promise<void>((done) => ctx.signal.addEventListener("abort", () => done(), { once: true }));
    aborted.shift()?.();
    return "cancelled";
  });
  server.asyncTool(
    async function later(n: number): Promise<number> {
      /** Doubles a number in the background. */
      return 2 * n;
    },
    { inputSchema: { type: "object", properties: { n: { type: "number" } } } },
  );
  server.resource(`data://${name}/info`, () => ({ from: name }), { description: `What ${name} knows` });
  server.prompt(function greet(who: string): string {
    /** Greets someone. */
    return `${name} greets ${who}`;
  });
  return server;
}

interface Caller {
  relay: Relay<Upstream>;
  sent: Message[];
  request(method: string, params?: Message, id?: string | number): Promise<Message>;
  next(match: (m: Message) => boolean): Promise<Message>;
}

async function relayOver(t: TestContext, names: string[], aborted: Array<() => void> = []): Promise<Caller> {
  const endpoints: Record<string, string> = {};
  for (const name of names) {
    const running = await toolServer(name, aborted).listen({ port: 0 });
    t.after(() => running.close());
    endpoints[name] = `http://127.0.0.1:${running.port}/mcp`;
  }
  const sent: Message[] = [];
  const arrived = new EventEmitter();
  const send = (m: unknown): void => {
    sent.push(m as Message);
    arrived.emit("message", m);
  };
  const relay = bridgeRelay(t, endpoints, send);
  const next = async (match: (m: Message) => boolean): Promise<Message> => {
    const seen = sent.find(match);
    if (seen) return seen;
    for await (const [m] of on(arrived, "message")) if (match(m as Message)) return m as Message;
    throw new Error("unreachable: the emitter never ends");
  };
  let counter = 0;
  const request = async (method: string, params?: Message, id: string | number = `c${counter++}`): Promise<Message> => {
    const reply = await relay.handle({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    return reply as Message;
  };
  const init = await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: "spec", version: "1" },
  });
  assert.ok(init.result, JSON.stringify(init));
  relay.notified("notifications/initialized", undefined);
  return { relay, sent, request, next };
}

const text = (reply: Message): string => reply.result.content[0].text;

test("several servers: one initialize result, merged lists with search first, names, prompts and URIs resolved to their server", {
  timeout: 20_000,
}, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  const init = (await c.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } })).result;
  assert.deepEqual(init.serverInfo, { name: "spec-relay", version: "1" });
  assert.match(init.instructions, /^alpha \(names prefixed alpha_\): The alpha server\.\n\nbeta \(names prefixed beta_\): The beta server\.$/);
  const names = (await c.request("tools/list")).result.tools.map((x: Message) => x.name);
  assert.equal(names[0], "hub_search_tools");
  for (const name of ["alpha_whoami", "beta_whoami", "alpha_ask", "beta_wait"]) assert.ok(names.includes(name), name);
  assert.equal(text(await c.request("tools/call", { name: "beta_whoami", arguments: {} })), "beta");
  assert.equal(text(await c.request("tools/call", { name: "alpha_whoami", arguments: {} })), "alpha");
  const uris = (await c.request("resources/list")).result.resources.map((r: Message) => r.uri);
  assert.deepEqual(uris, ["data://alpha/alpha/info", "data://beta/beta/info"]);
  const read = (await c.request("resources/read", { uri: "data://beta/beta/info" })).result;
  assert.equal(read.contents[0].uri, "data://beta/beta/info");
  assert.match(read.contents[0].text, /"from":\s*"beta"/);
  const prompt = (await c.request("prompts/get", { name: "alpha_greet", arguments: { who: "Ada" } })).result;
  assert.match(JSON.stringify(prompt.messages), /alpha greets Ada/);
  assert.equal((await c.request("tools/call", { name: "gamma_whoami", arguments: {} })).error.code, -32602);
  assert.deepEqual((await c.request("logging/setLevel", { level: "error" })).result, {});
});

test("several servers: the built-in search finds tools across them, under their exposed names", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  const found = (await c.request("tools/call", { name: "hub_search_tools", arguments: { query: "which server answered" } })).result;
  assert.deepEqual(
    found.structuredContent.tools.slice(0, 2).map((x: Message) => x.name),
    ["alpha_whoami", "beta_whoami"],
  );
  const bad = (await c.request("tools/call", { name: "hub_search_tools", arguments: {} })).result;
  assert.equal(bad.isError, true);
});

test("several servers: a server's request reaches the caller as <label>/<id>, and the answer goes back to that server", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  const calling = c.request("tools/call", { name: "beta_ask", arguments: {} });
  const asked = await c.next((m) => m.method === "elicitation/create");
  assert.match(asked.id, /^beta\/./);
  c.relay.answered({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { word: "yes" } } });
  assert.equal(text(await calling), "beta heard yes");
  // An answer to no request of a server's goes nowhere.
  c.relay.answered({ jsonrpc: "2.0", id: 'alpha/"nope"', result: {} });
  c.relay.answered({ jsonrpc: "2.0", id: asked.id, result: {} });
});

test("several servers: a cancellation reaches the server running the call, under that server's own id", { timeout: 20_000 }, async (t) => {
  let heard: () => void = () => {};
  const abortedOnServer = new Promise<void>((done) => (heard = done));
  const c = await relayOver(t, ["alpha", "beta"], [() => heard()]);
  await c.request("tools/list");
  const calling = c.relay.handle({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "beta_wait", arguments: {} } });
  // Once the call reached its server: the relay knows the server's own id for it.
  await new Promise<void>((ready) => {
    const poll = (): void => void (c.relay.calls.inFlight(requestKey(77)) ? ready() : setImmediate(poll));
    poll();
  });
  c.relay.notified("notifications/cancelled", { requestId: 77, reason: "no longer needed" });
  await abortedOnServer;
  // A cancelled request gets no answer.
  assert.equal(await calling, null);
  c.relay.notified("notifications/cancelled", { requestId: 78 });
});

test("a cancellation before the call reached its server stops it there; closing the relay stops what still runs", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  await c.request("tools/list");
  // Handled up to its first wait at once: the call is in the table, its server has no id for it yet.
  const early = c.relay.handle({ jsonrpc: "2.0", id: "early", method: "tools/call", params: { name: "alpha_wait", arguments: {} } });
  c.relay.notified("notifications/cancelled", { requestId: "early" });
  assert.equal(await early, null);
  c.relay.notified("notifications/cancelled", undefined);
  // Anything else the caller says goes to every started server.
  c.relay.notified("notifications/roots/list_changed", undefined);
  const running = c.relay.handle({ jsonrpc: "2.0", id: "late", method: "tools/call", params: { name: "beta_wait", arguments: {} } });
  c.relay.close();
  assert.equal(await running, null);
});

test("several servers: tasks are routed by their prefixed id and listed together", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  const created = (await c.request("tools/call", { name: "beta_later", arguments: { n: 21 }, _meta: TASKS })).result;
  assert.match(created.taskId, /^beta\/./);
  let task: Message;
  do task = (await c.request("tasks/get", { taskId: created.taskId, _meta: TASKS })).result;
  while (task.status === "working");
  assert.equal(task.status, "completed");
  const listed = (await c.request("tasks/list", {})).result.tasks.map((x: Message) => x.taskId);
  assert.ok(listed.includes(created.taskId), listed.join());
  assert.equal((await c.request("tasks/get", { taskId: "gamma/1" })).error.message, "Unknown task");
  assert.equal((await c.request("tasks/frobnicate", {})).error.code, -32601);
});

test("one server: the relay is transparent, names and ids as the server gave them, and no search tool", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha"]);
  const names = (await c.request("tools/list")).result.tools.map((x: Message) => x.name);
  assert.ok(names.includes("whoami") && !names.includes("hub_search_tools"), names.join());
  const calling = c.request("tools/call", { name: "ask", arguments: {} });
  const asked = await c.next((m) => m.method === "elicitation/create");
  assert.ok(!String(asked.id).startsWith("alpha/"), String(asked.id));
  c.relay.answered({ jsonrpc: "2.0", id: asked.id, error: { code: -1, message: "declined" } });
  assert.match(text(await calling), /answered with an error \(-1\)/, "the error went back to the tool under its own id");
});

test("a caller that can no longer answer: the servers' questions waiting and to come are refused at once", { timeout: 20_000 }, async (t) => {
  const c = await relayOver(t, ["alpha", "beta"]);
  const first = c.request("tools/call", { name: "alpha_ask", arguments: {} });
  await c.next((m) => m.method === "elicitation/create");
  c.relay.refuseServerRequests({ code: -32603, message: "gone" });
  const second = c.request("tools/call", { name: "beta_ask", arguments: {} });
  for (const reply of [await first, await second]) assert.ok(reply.result.isError || /no word/.test(text(reply)), JSON.stringify(reply));
});
