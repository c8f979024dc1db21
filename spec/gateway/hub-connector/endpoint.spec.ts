// `{publicUrl}/mcp` with a hub of three tools (the demo app under three names, run by
// start_mcp as children) and three groups: what each person lists and can call, and the
// demo's elicitation, progress, async task, cancellation and MCP App through the one endpoint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { startSdkServer } from "../../../fixtures/gateway/sdk-server.ts";
import { json, post, rpc, startHarness } from "../helpers.ts";

const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const Any = z.object({}).passthrough();
const demo = { app: "fixtures/demo/app.ts" };
const HUB = {
  tools: {
    mcpdemo: { revisions: { default: demo } },
    labdemo: { groups: ["users"], revisions: { default: demo } },
    staffdemo: { groups: ["staff"], revisions: { default: demo } },
  },
};

async function connect(
  t: { after(fn: () => unknown): void },
  url: string,
  token: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "connector-spec", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport };
}

async function allToolNames(client: Client): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((x) => x.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}

async function untilTask(client: Client, taskId: string, done: (t: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const task = (await client.request({ method: "tasks/get", params: { taskId, _meta: TASKS } }, Any)) as Record<string, unknown>;
    if (done(task)) return task;
    // The task protocol is polling: the client asks again after an interval.
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("one endpoint for every tool a person may use", { timeout: 120_000 }, async (t) => {
  const h = await startHarness(t, HUB, { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } });
  const url = `${h.base}/mcp`;
  const started = (): string[] => h.logs.filter((l) => l.includes('"tool session started"')).map((l) => `${JSON.parse(l).user}:${JSON.parse(l).tool}`);
  const { client: alice, transport } = await connect(t, url, h.tokens.alice);
  assert.match(transport.sessionId!, /^g1\./);

  await t.test("each person lists the tools of their groups, filled once per tool", async () => {
    const names = await allToolNames(alice);
    assert.equal(names[0], "hub_search_tools");
    for (const n of ["mcpdemo_add", "mcpdemo_ask_user", "labdemo_add", "labdemo_projectile"]) assert.ok(names.includes(n), n);
    assert.ok(!names.some((n) => n.startsWith("staffdemo_")));
    assert.deepEqual(started().sort(), ["alice:labdemo", "alice:mcpdemo"], "the first listing fills each catalog from one tool session");
    assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 0, "tool sessions started only to fill a catalog are stopped");

    const { client: carol } = await connect(t, url, h.tokens.carol);
    const carols = await allToolNames(carol);
    assert.ok(carols.includes("staffdemo_add") && carols.includes("mcpdemo_add") && !carols.some((n) => n.startsWith("labdemo_")));
    const { client: bob } = await connect(t, url, h.tokens.bob);
    const bobs = await allToolNames(bob);
    assert.deepEqual(
      bobs.filter((n) => !n.startsWith("mcpdemo_")),
      ["hub_search_tools", "hub_get_job_result"],
      "the built-in tools; mcpdemo's job poller is the one hub_get_job_result",
    );
    await allToolNames(alice);
    assert.deepEqual(started().sort(), ["alice:labdemo", "alice:mcpdemo", "carol:staffdemo"], "later listings start no tool session");
    assert.equal(h.logs.filter((l) => l.includes('"catalog filled"')).length, 3);
  });

  await t.test("hub_search_tools answers {tools: [...]} in its text as in its structuredContent", async () => {
    const found = await alice.callTool({ name: "hub_search_tools", arguments: { query: "add", limit: 3 } });
    const structured = found.structuredContent as { tools: Array<{ name: string }> };
    assert.ok(structured.tools.some((x) => x.name === "mcpdemo_add"));
    assert.deepEqual(JSON.parse((found.content as { text: string }[])[0]!.text), structured);
  });

  await t.test("a name of a tool the caller may not use is answered like a name that never existed", async () => {
    const hidden = await alice.callTool({ name: "staffdemo_add", arguments: { a: 1, b: 2 } }).catch((e: Error) => e.message);
    const missing = await alice.callTool({ name: "nosuchtool_add", arguments: { a: 1, b: 2 } }).catch((e: Error) => e.message);
    assert.equal(String(hidden).replace("staffdemo_add", "X"), String(missing).replace("nosuchtool_add", "X"));
    assert.match(String(hidden), /Unknown tool/);
    const read = await alice.readResource({ uri: "ui://staffdemo/demo/plot" }).catch((e: Error) => e.message);
    assert.match(String(read), /Resource not found/);
  });

  await t.test("calls go to the caller's own tool session, names and URIs as hub_bridge has them", async () => {
    assert.deepEqual((await alice.callTool({ name: "labdemo_add", arguments: { a: 1, b: 2 } })).content, [{ type: "text", text: "3" }]);
    const tools = (await alice.listTools()).tools;
    const projectile = tools.find((x) => x.name === "labdemo_projectile")!;
    assert.equal((projectile._meta as { ui: { resourceUri: string } }).ui.resourceUri, "ui://labdemo/demo/plot");
    const { resources } = await alice.listResources();
    assert.ok(resources.some((r) => r.uri === "ui://labdemo/demo/plot"));
    assert.ok(resources.some((r) => r.uri === "config://mcpdemo/demo/settings"));
    const app = await alice.readResource({ uri: "ui://labdemo/demo/plot" });
    assert.equal(app.contents[0]!.uri, "ui://labdemo/demo/plot");
    assert.match(String((app.contents[0] as { text: string }).text), /<html|<svg/i);
    const prompt = await alice.getPrompt({ name: "mcpdemo_explain", arguments: { topic: "momentum" } });
    assert.match(JSON.stringify(prompt.messages), /momentum/);
  });

  await t.test("elicitation reaches the client and its answer the tool", async () => {
    alice.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
    const res = await alice.callTool({ name: "mcpdemo_ask_user", arguments: { timeout: 20 } });
    assert.deepEqual(res.content, [{ type: "text", text: "Hello, Ada!" }]);
  });

  await t.test("an async task with progress, and cancellation", async () => {
    const progress: number[] = [];
    alice.setNotificationHandler(ProgressNotificationSchema, async (n) => void progress.push(n.params.progress));
    const created = (await alice.request(
      { method: "tools/call", params: { name: "labdemo_slow_sum", arguments: { values: "1,2,3", delay: 0.3 }, _meta: { ...TASKS, progressToken: "sum-1" } } },
      Any,
    )) as { resultType: string; taskId: string };
    assert.equal(created.resultType, "task");
    assert.match(created.taskId, /^labdemo\//);
    const done = await untilTask(alice, created.taskId, (x) => x.status === "completed");
    assert.deepEqual((done.result as { content: unknown }).content, [{ type: "text", text: "6" }]);

    const listed = (await alice.request({ method: "tasks/list", params: { _meta: TASKS } }, Any)) as { tasks: Array<{ taskId: string }> };
    assert.ok(
      listed.tasks.some((x) => x.taskId === created.taskId),
      "tasks/list names tasks with their tool's prefix",
    );
    const slow = (await alice.request(
      { method: "tools/call", params: { name: "mcpdemo_slow_sum", arguments: { values: "1,2", delay: 60 }, _meta: TASKS } },
      Any,
    )) as {
      taskId: string;
    };
    await alice.request({ method: "tasks/cancel", params: { taskId: slow.taskId, _meta: TASKS } }, Any);
    assert.equal((await untilTask(alice, slow.taskId, (x) => x.status !== "working")).status, "cancelled");
    await assert.rejects(alice.request({ method: "tasks/get", params: { taskId: "staffdemo/x", _meta: TASKS } }, Any), /Unknown task/);
  });

  await t.test("the session is the person's: another token or a tool route cannot use it", async () => {
    const sid = transport.sessionId!;
    const asBob = await post(url, h.tokens.bob, rpc("tools/list"), { "mcp-session-id": sid });
    assert.equal(asBob.status, 404);
    const onToolRoute = await post(`${h.base}/api/mcp/mcpdemo/mcp`, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": sid });
    assert.equal(onToolRoute.status, 404);
    assert.equal((await post(url, h.tokens.alice, rpc("tools/list"))).status, 400, "a request without a session must initialize first");
  });

  await t.test("stateless 2026-07-28 requests need no session", async () => {
    const V = "2026-07-28";
    const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
    const headers = (method: string, name?: string): Record<string, string> => ({
      "mcp-protocol-version": V,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    });
    const discovered = (await json(await post(url, h.tokens.bob, rpc("server/discover", { _meta: meta }), headers("server/discover")))).result;
    assert.deepEqual(discovered.supportedVersions, [V]);
    assert.equal(discovered._meta["io.modelcontextprotocol/serverInfo"].name, "hub_gateway");
    const list = await post(url, h.tokens.bob, rpc("tools/list", { _meta: meta }), headers("tools/list"));
    const listed = (await json(list)).result;
    assert.equal(listed.resultType, "complete");
    assert.ok(listed.tools.some((x: { name: string }) => x.name === "mcpdemo_divide"));
    const sum = await post(
      url,
      h.tokens.bob,
      rpc("tools/call", { name: "mcpdemo_add", arguments: { a: 2, b: 3 }, _meta: meta }),
      headers("tools/call", "mcpdemo_add"),
    );
    assert.equal(sum.status, 200);
    assert.equal((await json(sum)).result.content[0].text, "5");
  });

  await t.test("GET stream, DELETE, metadata, CORS", async () => {
    const { client: other, transport: tr } = await connect(t, url, h.tokens.alice);
    await other.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 1 } });
    const sid = tr.sessionId!;
    const stream = await fetch(url, { headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", "mcp-session-id": sid } });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("access-control-allow-origin"), "*");
    await stream.body!.cancel();
    const del = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, "mcp-session-id": sid } });
    assert.equal(del.status, 204);
    assert.equal((await post(url, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": sid })).status, 404);

    const meta = await fetch(`${h.base}/.well-known/oauth-protected-resource/mcp`);
    assert.equal((await json(meta)).resource, `${h.base}/mcp`);
    const anonymous = await post(url, undefined, rpc("tools/list"));
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("www-authenticate")!, new RegExp(`resource_metadata="${h.base}/.well-known/oauth-protected-resource/mcp"`));
    assert.equal(anonymous.headers.get("access-control-allow-origin"), "*");
    const bad = async (init: RequestInit, status: number): Promise<void> => {
      const res = await fetch(url, {
        ...init,
        headers: { authorization: `Bearer ${h.tokens.alice}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
      });
      assert.equal(res.status, status, JSON.stringify(init));
      await res.arrayBuffer();
    };
    await bad({ method: "POST", body: "{not json" }, 400);
    await bad({ method: "POST", body: "[]" }, 400);
    await bad({ method: "GET" }, 405);
    await bad({ method: "PUT", body: "{}" }, 405);
    await bad({ method: "DELETE" }, 400);
    await bad({ method: "POST", body: rpc("tools/list"), headers: { "mcp-session-id": "g1.forged" } }, 404);
    const unknown = await json(await post(url, h.tokens.alice, rpc("nonsense/method"), { "mcp-session-id": transport.sessionId! }));
    assert.equal(unknown.error.code, -32601);
    const templates = await json(await post(url, h.tokens.alice, rpc("resources/templates/list"), { "mcp-session-id": transport.sessionId! }));
    assert.ok(Array.isArray(templates.result.resourceTemplates));
    const ping = await json(await post(url, h.tokens.alice, rpc("ping"), { "mcp-session-id": transport.sessionId! }));
    assert.deepEqual(ping.result, {});
    await alice.setLoggingLevel("info");
    const completion = await alice
      .complete({ ref: { type: "ref/prompt", name: "mcpdemo_explain" }, argument: { name: "topic", value: "mo" } })
      .catch((e: Error) => e);
    assert.ok(!(completion instanceof Error) || !/Unknown|unknown completion/.test(completion.message), "a completion reaches the prompt's tool");
    const preflight = await fetch(url, { method: "OPTIONS" });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get("access-control-allow-headers")!, /Mcp-Session-Id/);
  });
});

test("the one endpoint in front of the official SDK's server (a `url` revision with its own session ids)", { timeout: 60_000 }, async (t) => {
  const sdk = await startSdkServer();
  t.after(() => sdk.close());
  const h = await startHarness(t, { tools: { sdkdemo: { revisions: { default: { url: sdk.url } } } } });
  const { client } = await connect(t, `${h.base}/mcp`, h.tokens.alice);
  const names = await allToolNames(client);
  for (const n of ["sdkdemo_add", "sdkdemo_ask_user"]) assert.ok(names.includes(n), n);
  assert.deepEqual((await client.callTool({ name: "sdkdemo_add", arguments: { a: 2, b: 3 } })).content, [{ type: "text", text: "5" }]);
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
  assert.deepEqual((await client.callTool({ name: "sdkdemo_ask_user", arguments: {} })).content, [{ type: "text", text: "Hello, Ada!" }]);
  const { resources } = await client.listResources();
  const settings = resources.find((r) => r.uri === "config://sdkdemo/demo/settings");
  assert.ok(settings, JSON.stringify(resources));
  assert.match(String(((await client.readResource({ uri: settings.uri })).contents[0] as { text: string }).text), /"gravity":9.81/);
});
