// Every section C route of the gateway against REAL tool servers, not the stand-in: an `app`
// revision (the gateway starts start_mcp behind its session proxy path), a `url` revision (a
// start_mcp this spec runs on its own port), and a `url` revision served by the official
// SDK's McpServer with its own session ids (fixtures/gateway/sdk-server.ts): the gateway
// needs nothing of an upstream but standard MCP, bootstrap routes included. The stand-in's
// event streams are simpler than the real ones, which once hid a broken bootstrap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startSdkServer } from "../../fixtures/gateway/sdk-server.ts";
import { spawnCli } from "../helpers/launcher-fixtures.ts";
import { SseReader } from "../../lib/http/sse-reader.ts";
import { json, post, ROOT, rpc, startHarness, type Harness } from "./helpers.ts";

const NO_COVERAGE = { ...process.env, NODE_V8_COVERAGE: "" };
const DEMO = join(ROOT, "fixtures", "demo", "app.ts");

/** A start_mcp serving the demo app on a port of its own, for the `url` revision. */
async function ownToolServer(t: Parameters<typeof startHarness>[0]): Promise<string> {
  const cli = spawnCli(t, ["--app", DEMO, "--host", "127.0.0.1", "--port", "0"], NO_COVERAGE);
  const [, url] = await cli.waitFor(/MCP server ready at (http:\/\/\S+)/);
  return url!;
}

/** A JSON-RPC answer, sent as JSON or (as the SDK's server does) as an event stream. */
async function answer(res: Response): Promise<any> {
  const text = await res.text();
  if (!/^text\/event-stream/.test(res.headers.get("content-type") ?? "")) return JSON.parse(text);
  return JSON.parse(
    events(text)
      .filter((e) => e.event === "message")
      .at(-1)!.data,
  );
}

function events(text: string): Array<{ event: string; data: string; id: string }> {
  return new SseReader().push(text);
}

/** `hubmcp`: the upstream is start_mcp, which also serves the REST tool route and the OpenAPI document. */
async function routes(t: test.TestContext, h: Harness, tool: string, hubmcp = true): Promise<void> {
  const base = `${h.base}/api/mcp/${tool}`;
  const bearer = { authorization: `Bearer ${h.tokens.alice}` };
  const call = rpc("tools/call", { name: "add", arguments: { a: 2, b: 3 } });
  const five = (body: { result: { content: unknown } }): void => assert.deepEqual(body.result.content, [{ type: "text", text: "5" }]);

  await t.test("GET …/mcp with no session: one complete event stream whose endpoint takes POSTs", async () => {
    const res = await fetch(`${base}/mcp`, { headers: { ...bearer, accept: "text/event-stream" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const [endpoint] = events(await res.text()).filter((e) => e.event === "endpoint");
    assert.match(endpoint!.data, new RegExp(`^/api/mcp/${tool}/mcp\\?session_id=g1\\.`));
    five(await answer(await post(`${h.base}${endpoint!.data}`, h.tokens.alice, call)));
  });

  await t.test("GET /api/mcp/{tool}: bootstrap endpoints, and the session path takes POSTs", async () => {
    const res = await fetch(base, { headers: bearer });
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.tool, tool);
    assert.equal(body.endpoints.mcp, `${base}/mcp`);
    assert.equal(body.endpoints.session, `${base}/${body.session}`);
    five(await answer(await post(body.endpoints.session, h.tokens.alice, call)));
    const again = await json(await fetch(base, { headers: { ...bearer, "mcp-session-id": body.session } }));
    assert.equal(again.session, body.session);
  });

  await t.test("POST …/mcp: initialize mints a session that later calls use", async () => {
    const init = await post(
      `${base}/mcp`,
      h.tokens.alice,
      rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
    );
    assert.equal(init.status, 200);
    await init.text();
    const session = init.headers.get("mcp-session-id")!;
    assert.match(session, /^g1\./);
    const res = await post(`${base}/mcp`, h.tokens.alice, call, { "mcp-session-id": session });
    assert.equal(res.headers.get("mcp-session-id"), session);
    five(await answer(res));
    // Resource URIs go out as the tool wrote them, so they match its `_meta` links (issue 34.3).
    const listed = await answer(await post(`${base}/mcp`, h.tokens.alice, rpc("resources/list", {}, 2), { "mcp-session-id": session }));
    assert.ok(
      listed.result.resources.some((r: { uri: string }) => r.uri === "config://demo/settings"),
      JSON.stringify(listed),
    );
    // A rewritten answer (ping), whether the tool server sent JSON or an event stream.
    assert.deepEqual((await answer(await post(`${base}/mcp`, h.tokens.alice, rpc("ping", {}, 3), { "mcp-session-id": session }))).result, {});
    // A body the gateway does not act on goes on unread: what is not JSON, the tool server refuses.
    const garbage = await post(`${base}/mcp`, h.tokens.alice, "{not json", { "mcp-session-id": session });
    assert.equal(garbage.status, 400);
    assert.equal(((await garbage.json()) as { error: { code: number } }).error.code, -32700);
  });

  await t.test("POST /api/mcp/{tool} without a session mints one", async () => {
    const res = await post(base, h.tokens.alice, call);
    assert.match(res.headers.get("mcp-session-id")!, /^g1\./);
    five(await answer(res));
  });

  await t.test("POST …/tools/{name} and GET …/openapi.json pass through", async () => {
    if (!hubmcp) {
      // Not MCP: a server without them answers 404, and the gateway passes that on.
      assert.equal((await post(`${base}/tools/add`, h.tokens.alice, '{"a":1,"b":2}').then(async (r) => (await r.text(), r))).status, 404);
      assert.equal((await fetch(`${base}/openapi.json`, { headers: bearer }).then(async (r) => (await r.text(), r))).status, 404);
      return;
    }
    assert.deepEqual(await json(await post(`${base}/tools/add`, h.tokens.alice, '{"a":1,"b":2}')), { result: "3" });
    const doc = await json(await fetch(`${base}/openapi.json`, { headers: bearer }));
    assert.equal(doc.openapi, "3.1.0");
    assert.ok(doc.paths["/tools/add"]);
  });

  await t.test("GET …/sse: the connection info names gateway URLs only", async () => {
    const info = await json(await fetch(`${base}/sse`, { headers: bearer }));
    assert.deepEqual(Object.keys(info).sort(), ["cookie_header", "post_endpoint", "sse_endpoint"]);
    for (const url of [info.sse_endpoint, info.post_endpoint]) assert.ok(url.startsWith(`${h.base}/`), url);
  });

  await t.test("GET …/sse as an event stream: the 2024-11-05 transport for the SDK's SSEClientTransport, elicitation included", async () => {
    const client = new Client({ name: "legacy-sse", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
    await client.connect(new SSEClientTransport(new URL(`${base}/sse`), { requestInit: { headers: bearer } }));
    t.after(() => client.close());
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.content, [{ type: "text", text: "5" }]);
    // The POST that carried the call was released at once, so the answer to the tool's question could be sent.
    const asked = await client.callTool({ name: "ask_user", arguments: { timeout: 20 } });
    assert.deepEqual(asked.content, [{ type: "text", text: "Hello, Ada!" }]);
    const { resources } = await client.listResources();
    const settings = resources.find((r) => r.uri.endsWith("config://demo/settings"));
    assert.equal(settings?.uri, "config://demo/settings");
    const read = await client.readResource({ uri: settings!.uri });
    assert.match(String((read.contents[0] as { text: string }).text), /"gravity":9.81/);
  });

  await t.test("the legacy stream's POST URL takes the same bearer, and only its owner's", async () => {
    const ac = new AbortController();
    t.after(() => ac.abort());
    const res = await fetch(`${base}/sse`, { headers: { ...bearer, accept: "text/event-stream" }, signal: ac.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const body = res.body!.getReader();
    const reader = new SseReader();
    const next = async (): Promise<{ event: string; data: string }> => {
      for (;;) {
        const [event] = reader.push((await body.read()).value!);
        if (event) return event;
      }
    };
    const endpoint = await next();
    assert.equal(endpoint.event, "endpoint");
    assert.match(endpoint.data, new RegExp(`^/api/mcp/${tool}/sse\\?session_id=g1\\.`));
    const url = `${h.base}${endpoint.data}`;
    const accepted = await post(url, h.tokens.alice, rpc("tools/call", { name: "add", arguments: { a: 1, b: 1 } }, 41));
    assert.equal(accepted.status, 202);
    await accepted.text();
    assert.deepEqual(JSON.parse((await next()).data), { jsonrpc: "2.0", id: 41, result: { content: [{ type: "text", text: "2" }], isError: false } });
    const anonymous = await post(url, undefined, rpc("ping"));
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("www-authenticate")!, new RegExp(`resource_metadata="${base}/sse/\\.well-known/oauth-protected-resource"`));
    await anonymous.text();
    const stranger = await post(url, h.tokens.bob, rpc("ping"));
    assert.equal(stranger.status, 404);
    await stranger.text();
    const garbage = await post(url, h.tokens.alice, "{not json");
    assert.equal(garbage.status, 400);
    await garbage.text();
  });

  await t.test("protected-resource metadata and the CORS preflight", async () => {
    const sse = await json(await fetch(`${base}/sse/.well-known/oauth-protected-resource`));
    assert.equal(sse.resource, `${base}/sse`);
    assert.ok(checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(`${base}/sse`), configuredResource: sse.resource }));
    assert.equal((await json(await fetch(`${h.base}/.well-known/oauth-protected-resource/api/mcp/${tool}/sse`))).resource, `${base}/sse`);
    const meta = await json(await fetch(`${base}/mcp/.well-known/oauth-protected-resource`));
    assert.equal(meta.resource, `${base}/mcp`);
    const pre = await fetch(`${base}/mcp`, { method: "OPTIONS", headers: { origin: "https://host.example", "access-control-request-method": "POST" } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  });
}

test("section C routes against a start_mcp child of an `app` revision", { timeout: 90_000 }, async (t) => {
  const h = await startHarness(t, { tools: { demo: { revisions: { default: { app: DEMO } } } } }, { childEnv: NO_COVERAGE });
  await routes(t, h, "demo");
});

test("section C routes against a running start_mcp as a `url` revision", { timeout: 90_000 }, async (t) => {
  const url = await ownToolServer(t);
  const h = await startHarness(t, { tools: { demo: { revisions: { default: { url } } } } });
  await routes(t, h, "demo");
});

test("section C routes against the official SDK's server as a `url` revision, its own session ids included", { timeout: 90_000 }, async (t) => {
  const sdk = await startSdkServer();
  t.after(() => sdk.close());
  const h = await startHarness(t, { tools: { demo: { revisions: { default: { url: sdk.url } } } } });
  await routes(t, h, "demo", false);
  assert.ok(sdk.sessions() > 0);
});
