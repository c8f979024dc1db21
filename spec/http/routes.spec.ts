// Every HTTP route and every error status it answers with, over real sockets.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { McpServer, ToolResult, type RunningServer, type Logger } from "../../lib/index.ts";
import { openEvents, post, rpc } from "../helpers/rpc.ts";

const logged: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
};

function makeServer(): McpServer {
  const server = new McpServer("routes-test", { version: "2.3.4", logger, maxBodyBytes: 4096 });
  const ab = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
  server.tool((a: number, b: number) => a + b, { name: "add", description: "Add two numbers", inputSchema: ab });
  server.tool((a: number, b: number) => (b === 0 ? ToolResult.error("Cannot divide by zero") : a / b), { name: "divide", inputSchema: ab });
  server.tool(() => ({ x: 1, nested: { y: [1, 2] } }), { name: "obj" });
  server.tool(() => "plain text", { name: "str" });
  server.tool(() => true, { name: "bool" });
  server.tool(() => null, { name: "nothing" });
  server.tool(() => ({ content: [{ type: "text", text: "bad" }], is_error: true }), { name: "explicit_error" });
  server.tool(() => [1, 2], { name: "list" });
  server.tool(
    (_args: object) => {
      throw new Error("boom");
    },
    { name: "throws", inputSchema: { type: "object", properties: { secret: { type: "string" } } } },
  );
  server.tool((_args: object, ctx: unknown) => (ctx ? "has context" : "no context"), { name: "needs_ctx", inputSchema: { type: "object" } });
  server.resource("config://app/settings", () => ({ units: "SI" }), { name: "settings", mimeType: "application/json" });
  server.resource("ui://app/view", () => "<p>hi</p>", { name: "view" });
  server.resource("text://hello", () => "hello");
  server.resource("bin://bytes", () => new Uint8Array([1, 2, 3]));
  server.resource("config://broken", () => {
    throw new Error("secret-token-123");
  });
  server.prompt((topic: string) => `Explain ${topic}`, { name: "explain", description: "Explain a topic" });
  server.prompt(
    () => {
      throw new Error("prompt-secret");
    },
    { name: "broken_prompt", arguments: [] },
  );
  return server;
}

// eslint-style escape hatch for reading JSON bodies in assertions.
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

let running: RunningServer;
let base: string;

before(async () => {
  running = await makeServer().listen({ port: 0 });
  base = running.url;
});
after(() => running.close());

describe("documents", () => {
  test("GET / is the server info", async () => {
    const res = await fetch(base);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await (res.json() as Promise<any>), {
      name: "routes-test",
      version: "2.3.4",
      status: "running",
      tools: 10,
      resources: 5,
      prompts: 2,
      endpoints: { sse: "/sse", mcp: "/mcp", openapi: "/openapi.json" },
    });
  });

  test("GET /.well-known/mcp.json is the discovery document", async () => {
    const doc = await getJson(`${base}.well-known/mcp.json`);
    assert.equal(doc.mcpVersion, "2024-11-05");
    assert.deepEqual(doc.protocolVersions, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    assert.deepEqual(doc.serverInfo, { name: "routes-test", version: "2.3.4" });
    assert.deepEqual(Object.keys(doc.capabilities).sort(), ["extensions", "logging", "prompts", "resources", "tools"]);
    assert.deepEqual(doc.capabilities.extensions, { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } });
    assert.deepEqual(doc.transports, [
      { type: "sse", endpoint: "/sse" },
      { type: "streamable-http", endpoint: "/mcp" },
    ]);
  });

  test("the ui extension is absent without a ui:// HTML resource", async (t) => {
    const plain = new McpServer("plain");
    plain.tool(() => 1, { name: "one" });
    plain.resource("ui://not-html", () => "{}", { mimeType: "application/json" });
    const r = await plain.listen({ port: 0 });
    t.after(() => r.close());
    const doc = await getJson(`${r.url}.well-known/mcp.json`);
    assert.deepEqual(doc.capabilities.extensions, {});
    const init = await post(`${r.url}mcp`, rpc(1, "initialize", {}));
    assert.equal(init.json.result.capabilities.extensions, undefined);
    assert.equal(init.json.result.capabilities.prompts, undefined);
  });

  test("GET /openapi.json describes /mcp and one path per session-free tool", async () => {
    const doc = await getJson(`${base}openapi.json`);
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual({ ...doc.info, description: undefined }, { title: "routes-test", version: "2.3.4", description: undefined });
    assert.match(doc.info.description, /not listed here, and answer 409 on REST/);
    assert.equal(doc.paths["/mcp"].get.operationId, "mcp_sse");
    assert.equal(doc.paths["/mcp"].post.operationId, "mcp_message");
    const add = doc.paths["/tools/add"].post;
    assert.equal(add.operationId, "add");
    assert.equal(add.summary, "Add two numbers");
    assert.deepEqual(add.requestBody.content["application/json"].schema.required, ["a", "b"]);
    assert.equal(doc.paths["/tools/needs_ctx"], undefined, "context-bearing tools need a session");
  });
});

describe("JSON-RPC over POST /mcp and POST /", () => {
  test("initialize negotiates the version and mints a session", async () => {
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      const res = await post(`${base}mcp`, rpc(1, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } }));
      assert.equal(res.status, 200);
      assert.equal(res.json.result.protocolVersion, version);
      assert.match(res.headers.get("mcp-session-id") ?? "", /^[\x21-\x7e]{22,}$/);
    }
    const old = await post(`${base}mcp`, rpc(1, "initialize", { protocolVersion: "1999-01-01" }));
    assert.equal(old.json.result.protocolVersion, "2025-11-25");
    const empty = await post(`${base}mcp`, rpc(1, "initialize"));
    assert.deepEqual(empty.json.result.serverInfo, { name: "routes-test", version: "2.3.4" });
    assert.deepEqual(empty.json.result.capabilities.tools, { listChanged: true });
    assert.deepEqual(empty.json.result.capabilities.logging, {});
  });

  test("POST / behaves exactly like POST /mcp", async () => {
    const a = await post(base, rpc(7, "tools/call", { name: "add", arguments: { a: 2, b: 3 } }));
    const b = await post(`${base}mcp`, rpc(7, "tools/call", { name: "add", arguments: { a: 2, b: 3 } }));
    assert.equal(a.status, 200);
    assert.equal(a.text, b.text);
    assert.deepEqual(a.json.result, { content: [{ type: "text", text: "5" }], isError: false });
  });

  test("ping answers an empty object, never an array", async () => {
    const res = await post(`${base}mcp`, rpc("p", "ping", {}));
    assert.equal(res.text, '{"jsonrpc":"2.0","id":"p","result":{}}');
  });

  test("notifications get 202 accepted", async () => {
    for (const method of ["initialized", "notifications/initialized", "notifications/whatever"]) {
      const res = await post(`${base}mcp`, { jsonrpc: "2.0", method });
      assert.equal(res.status, 202);
      assert.deepEqual(res.json, { status: "accepted" });
    }
  });

  test("a batch answers the entries with an id, in order", async () => {
    const res = await post(`${base}mcp`, [
      rpc(1, "ping"),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      rpc(2, "tools/call", { name: "add", arguments: { a: 1, b: 1 } }),
      rpc(3, "no/such"),
      42,
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.map((r: { id: unknown }) => r.id),
      [1, 2, 3, null],
    );
    assert.equal(res.json[1].result.content[0].text, "2");
    assert.equal(res.json[2].error.code, -32601);
    assert.equal(res.json[3].error.code, -32600);
  });

  test("an all-notification batch gets 202; an empty batch is an invalid request", async () => {
    const notes = await post(`${base}mcp`, [{ jsonrpc: "2.0", method: "initialized" }]);
    assert.equal(notes.status, 202);
    const empty = await post(`${base}mcp`, []);
    assert.equal(empty.status, 400);
    assert.equal(empty.json.error.code, -32600);
  });

  test("a batch over the limit is refused whole before any entry runs", async (t) => {
    let calls = 0;
    const server = new McpServer("batch");
    server.tool(() => ++calls, { name: "count", inputSchema: { type: "object" } });
    const r = await server.listen({ port: 0 });
    t.after(() => r.close());
    const batch = (n: number) => Array.from({ length: n }, (_, i) => rpc(i, "tools/call", { name: "count", arguments: {} }));
    const full = await post(`${r.url}mcp`, batch(100));
    assert.equal(full.status, 200);
    assert.equal(full.json.length, 100);
    const over = await post(`${r.url}mcp`, batch(101));
    assert.equal(over.status, 400);
    assert.deepEqual(over.json, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: batch too large (limit 100)" } });
    assert.equal(calls, 100, "no entry of the refused batch ran");
  });

  test("bodies that are not JSON are parse errors with id null", async () => {
    for (const body of ["{not json", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
      const res = await post(`${base}mcp`, body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
  });

  test("unusable messages are invalid requests", async () => {
    for (const body of ['"hello"', "42", "null", JSON.stringify({ jsonrpc: "2.0", id: 5 }), JSON.stringify({ id: 5, method: "ping" })]) {
      const res = await post(`${base}mcp`, body);
      assert.equal(res.status, 400, body);
      assert.equal(res.json.error.code, -32600, body);
    }
  });

  test("params and arguments must be objects", async () => {
    const params = await post(`${base}mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list", params: [1] });
    assert.equal(params.status, 200);
    assert.equal(params.json.error.code, -32602);
    const args = await post(`${base}mcp`, rpc(2, "tools/call", { name: "add", arguments: [1, 2] }));
    assert.equal(args.json.error.code, -32602);
  });

  test("unknown method, tool, resource and prompt", async () => {
    const method = await post(`${base}mcp`, rpc(1, "foo/bar"));
    assert.deepEqual(method.json.error, { code: -32601, message: "Method not found: foo/bar" });
    const tool = await post(`${base}mcp`, rpc(2, "tools/call", { name: "nope", arguments: {} }));
    assert.deepEqual(tool.json.error, { code: -32602, message: "Unknown tool: nope" });
    const resource = await post(`${base}mcp`, rpc(3, "resources/read", { uri: "config://missing" }));
    assert.deepEqual(resource.json.error, { code: -32002, message: "Resource not found", data: { uri: "config://missing" } });
    const prompt = await post(`${base}mcp`, rpc(4, "prompts/get", { name: "nope" }));
    assert.equal(prompt.json.error.code, -32602);
    const missing = await post(`${base}mcp`, rpc(5, "prompts/get", { name: "explain", arguments: {} }));
    assert.deepEqual(missing.json.error, { code: -32602, message: "Missing required argument: topic" });
  });

  test("failing resource and prompt handlers answer -32603 with a fixed message and log the details", async () => {
    const resource = await post(`${base}mcp`, rpc(1, "resources/read", { uri: "config://broken" }));
    assert.deepEqual(resource.json.error, { code: -32603, message: "Resource handler failed" });
    const prompt = await post(`${base}mcp`, rpc(2, "prompts/get", { name: "broken_prompt" }));
    assert.deepEqual(prompt.json.error, { code: -32603, message: "Prompt handler failed" });
    assert.ok(!resource.text.includes("secret") && !prompt.text.includes("secret"));
    assert.ok(logged.some((line) => line.includes("secret-token-123")));
  });

  test("tool results are shaped by what the handler returned", async () => {
    const call = async (name: string) => (await post(`${base}mcp`, rpc(1, "tools/call", { name, arguments: {} }))).json.result;
    assert.deepEqual(await call("obj"), {
      content: [{ type: "text", text: '{"x":1,"nested":{"y":[1,2]}}' }],
      isError: false,
      structuredContent: { x: 1, nested: { y: [1, 2] } },
    });
    assert.deepEqual(await call("str"), { content: [{ type: "text", text: "plain text" }], isError: false });
    assert.deepEqual(await call("bool"), { content: [{ type: "text", text: "true" }], isError: false });
    assert.deepEqual(await call("nothing"), { content: [], isError: false });
    assert.deepEqual(await call("list"), { content: [{ type: "text", text: "[1,2]" }], isError: false });
    assert.deepEqual(await call("explicit_error"), { content: [{ type: "text", text: "bad" }], isError: true });
  });

  test("a tool that throws or reports an error is an isError result, not a JSON-RPC error", async () => {
    const thrown = await post(`${base}mcp`, rpc(1, "tools/call", { name: "throws", arguments: { secret: "hunter2" } }));
    assert.deepEqual(thrown.json.result, { content: [{ type: "text", text: "boom" }], isError: true });
    assert.ok(!thrown.text.includes("hunter2"));
    const divide = await post(`${base}mcp`, rpc(2, "tools/call", { name: "divide", arguments: { a: 1, b: 0 } }));
    assert.deepEqual(divide.json.result, { content: [{ type: "text", text: "Cannot divide by zero" }], isError: true });
  });

  test("lists carry what was registered", async () => {
    const tools = (await post(`${base}mcp`, rpc(1, "tools/list"))).json.result.tools;
    assert.equal(tools.length, 10);
    assert.deepEqual(tools[0], {
      name: "add",
      description: "Add two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    });
    const resources = (await post(`${base}mcp`, rpc(2, "resources/list"))).json.result.resources;
    assert.deepEqual(resources[0], { uri: "config://app/settings", name: "settings", mimeType: "application/json" });
    assert.deepEqual(resources[1], { uri: "ui://app/view", name: "view", mimeType: "text/html;profile=mcp-app" });
    const prompts = (await post(`${base}mcp`, rpc(3, "prompts/list"))).json.result.prompts;
    assert.deepEqual(prompts[0], { name: "explain", description: "Explain a topic", arguments: [{ name: "topic", required: true }] });
  });

  test("resources/read returns text, JSON and base64 blobs", async () => {
    const read = async (uri: string) => (await post(`${base}mcp`, rpc(1, "resources/read", { uri }))).json.result.contents;
    assert.deepEqual(await read("config://app/settings"), [{ uri: "config://app/settings", mimeType: "application/json", text: '{"units":"SI"}' }]);
    assert.deepEqual(await read("text://hello"), [{ uri: "text://hello", text: "hello" }]);
    assert.deepEqual(await read("bin://bytes"), [{ uri: "bin://bytes", mimeType: "application/octet-stream", blob: "AQID" }]);
  });

  test("prompts/get renders messages", async () => {
    const res = await post(`${base}mcp`, rpc(1, "prompts/get", { name: "explain", arguments: { topic: "entropy" } }));
    assert.deepEqual(res.json.result, {
      description: "Explain a topic",
      messages: [{ role: "user", content: { type: "text", text: "Explain entropy" } }],
    });
  });

  test("a body over the limit gets 413 and the server keeps serving", async () => {
    const res = await post(`${base}mcp`, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(8000) } }));
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { error: "Request body too large" });
    assert.equal((await post(`${base}mcp`, rpc(2, "ping"))).status, 200);
  });

  test("a request naming an unknown session gets 404", async () => {
    const res = await post(`${base}mcp`, rpc(1, "ping"), { "mcp-session-id": "no-such-session" });
    assert.equal(res.status, 404);
    const byQuery = await post(`${base}mcp?session_id=nope`, rpc(1, "ping"));
    assert.equal(byQuery.status, 404);
  });
});

describe("POST /tools/<name>", () => {
  test("success renders the result as text", async () => {
    const res = await post(`${base}tools/add`, { a: 2, b: 40 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { result: "42" });
    const obj = await post(`${base}tools/obj`, {});
    assert.deepEqual(obj.json, { result: '{"x":1,"nested":{"y":[1,2]}}', structuredContent: { x: 1, nested: { y: [1, 2] } } });
  });

  test("an empty body means no arguments", async () => {
    const res = await fetch(`${base}tools/str`, { method: "POST" });
    assert.deepEqual(await res.json(), { result: "plain text" });
  });

  test("errors map to 400, 404, 409 and 500", async () => {
    assert.equal((await post(`${base}tools/add`, "[1,2]")).status, 400);
    assert.deepEqual((await post(`${base}tools/add`, "{oops")).json, { error: "Body is not valid JSON" });
    const missing = await post(`${base}tools/nope`, {});
    assert.deepEqual([missing.status, missing.json], [404, { error: "Unknown tool: nope" }]);
    const ctx = await post(`${base}tools/needs_ctx`, {});
    assert.equal(ctx.status, 409);
    assert.match(ctx.json.error, /call it over MCP/);
    const thrown = await post(`${base}tools/throws`, { secret: "hunter2" });
    assert.deepEqual([thrown.status, thrown.json], [500, { error: "boom" }]);
    const divide = await post(`${base}tools/divide`, { a: 1, b: 0 });
    assert.deepEqual([divide.status, divide.json], [500, { error: "Cannot divide by zero" }]);
  });
});

describe("HTTP surface", () => {
  test("unknown paths are 404 JSON and wrong methods 405 with Allow", async () => {
    const missing = await fetch(`${base}nowhere`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: "Not found" });
    assert.equal(missing.headers.get("access-control-allow-origin"), "*");
    const wrong = await fetch(`${base}openapi.json`, { method: "DELETE" });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET, HEAD, OPTIONS");
    assert.deepEqual(await wrong.json(), { error: "Method not allowed" });
  });

  test("HEAD answers for documents but never opens a stream or mints a session", async (t) => {
    const server = new McpServer("head");
    const r = await server.listen({ port: 0 });
    t.after(() => r.close());
    assert.equal((await fetch(r.url, { method: "HEAD" })).status, 200);
    for (const path of ["sse", "mcp"]) {
      const res = await fetch(`${r.url}${path}`, { method: "HEAD" });
      assert.equal(res.status, 405, path);
    }
    assert.equal(server.sessions.size, 0);
  });

  test("CORS preflight allows the MCP headers", async () => {
    const res = await fetch(`${base}mcp`, { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("access-control-allow-methods"), "GET, POST, DELETE, OPTIONS");
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const h of ["authorization", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id"]) assert.ok(allowed.includes(h), h);
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
  });

  test("actual responses expose the session and auth headers", async () => {
    const res = await post(`${base}mcp`, rpc(1, "ping"));
    assert.equal(res.headers.get("access-control-expose-headers"), "Mcp-Session-Id, WWW-Authenticate");
  });
});

describe("streams", () => {
  test("legacy SSE round trip: endpoint, POST to it, message event", async (t) => {
    const events = await openEvents(`${base}sse`);
    t.after(() => events.close());
    assert.equal(events.response.headers["content-type"], "text/event-stream; charset=utf-8");
    assert.equal(events.response.headers["cache-control"], "no-cache, no-transform");
    assert.equal(events.response.headers["x-accel-buffering"], "no");
    // `open` is a comment now (the official clients warn on it): the first event is `endpoint`.
    const endpoint = await events.next();
    assert.equal(endpoint.event, "endpoint");
    assert.match(endpoint.data, /^\/\?session_id=[\w-]+$/);
    const res = await post(new URL(endpoint.data, base).href, rpc(9, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }));
    const message = await events.next();
    assert.equal(message.event, "message");
    assert.deepEqual(JSON.parse(message.data), res.json);
  });

  test("GET /mcp opens a stream whose first event is the endpoint", async (t) => {
    const events = await openEvents(`${base}mcp`);
    t.after(() => events.close());
    const endpoint = await events.next();
    assert.equal(endpoint.event, "endpoint");
    assert.match(endpoint.data, /^\/mcp\?session_id=[\w-]+$/);
  });

  test("responses go to their session's /sse stream, or to every /sse stream without a session", async (t) => {
    const a = await openEvents(`${base}sse`);
    const b = await openEvents(`${base}sse`);
    t.after(() => (a.close(), b.close()));
    const aEndpoint = (await a.next()).data;
    await b.next();
    await post(new URL(aEndpoint, base).href, rpc("only-a", "ping"));
    await post(`${base}mcp`, rpc("everyone", "ping"));
    assert.equal(JSON.parse((await a.next()).data).id, "only-a");
    assert.equal(JSON.parse((await a.next()).data).id, "everyone");
    assert.equal(JSON.parse((await b.next()).data).id, "everyone", "b never saw only-a");
  });

  test("DELETE /mcp ends a session; later requests naming it get 404", async () => {
    const init = await post(`${base}mcp`, rpc(1, "initialize", {}));
    const id = init.headers.get("mcp-session-id")!;
    const del = await fetch(`${base}mcp`, { method: "DELETE", headers: { "mcp-session-id": id } });
    assert.equal(del.status, 200);
    assert.equal((await post(`${base}mcp`, rpc(2, "ping"), { "mcp-session-id": id })).status, 404);
    assert.equal((await fetch(`${base}mcp`, { method: "DELETE", headers: { "mcp-session-id": id } })).status, 404);
  });
});

describe("path prefix", () => {
  test("the prefix is stripped from paths and resource URIs, and endpoint events carry it", async (t) => {
    const prefix = "/weber/123/cookie/5";
    const r = await makeServer().listen({ port: 0, pathPrefix: `${prefix}/` });
    t.after(() => r.close());
    assert.ok(r.url.endsWith(`${prefix}/`));
    const info = await getJson(r.url);
    assert.equal(info.endpoints.mcp, `${prefix}/mcp`);
    assert.equal((await post(`${r.url}mcp`, rpc(1, "ping"))).status, 200);
    const events = await openEvents(`${r.url}sse`);
    t.after(() => events.close());
    assert.ok((await events.next()).data.startsWith(`${prefix}/?session_id=`));
    for (const uri of [
      `${prefix}/config://app/settings`,
      "https://hub.example.org/api/mcp/tool/ui://app/view",
      `https://proxy.example.org${prefix}/ui://app/view`,
    ]) {
      const res = await post(`${r.url}mcp`, rpc(1, "resources/read", { uri }));
      assert.ok(res.json.result, uri);
    }
  });
});

describe("lifecycle", () => {
  test("close() ends open streams and is safe to call twice", async () => {
    const r = await makeServer().listen({ port: 0 });
    const events = await openEvents(`${r.url}sse`);
    await events.next();
    const ended = new Promise((resolve) => events.response.on("close", resolve));
    await Promise.all([r.close(), r.close()]);
    await ended;
    await r.close();
  });

  // The grace period is far longer than the test's budget: if close() waited for the
  // stalled upload, the test would time out instead of passing.
  test("a client that stalls mid-upload neither blocks others nor holds close()", { timeout: 10_000 }, async (t) => {
    const server = new McpServer("stall", { closeTimeoutMs: 600_000 });
    const r = await server.listen({ port: 0 });
    const stalled = request(`${r.url}mcp`, { method: "POST", headers: { "content-length": "100" } });
    stalled.on("error", () => {});
    stalled.write('{"jsonrpc":');
    t.after(() => r.close());
    assert.equal((await post(`${r.url}mcp`, rpc(1, "ping"))).status, 200);
    const cut = new Promise((resolve) => stalled.on("close", resolve));
    await r.close();
    await cut;
  });
});

describe("close() and running calls", () => {
  test("close() lets a running POST /mcp call finish and answer before it cuts connections", { timeout: 10_000 }, async () => {
    const server = new McpServer("draining", { closeTimeoutMs: 600_000 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    server.tool(
      async function slow() {
        started();
        await gate;
        return "done";
      },
      { inputSchema: { type: "object", properties: {} } },
    );
    const r = await server.listen({ port: 0 });
    const call = post(`${r.url}mcp`, rpc(1, "tools/call", { name: "slow", arguments: {} }));
    await running;
    const closing = r.close();
    // One turn for close() to reach its wait; had it not counted the call, it would cut the connection now.
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    const res = await call;
    assert.equal(res.status, 200);
    assert.equal((res.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text, "done");
    await closing;
  });
});

describe("results that cannot be sent", () => {
  test("a circular object, a nested BigInt or a function is an isError result with a fixed text", async () => {
    const server = new McpServer("unsendable");
    const circular: Record<string, unknown> = { secretKey: 1 };
    circular.self = circular;
    server.tool(() => circular, { name: "circular" });
    server.tool(() => ({ n: 1n }), { name: "bigint" });
    server.tool(
      () =>
        function leak() {
          return "source-of-the-handler";
        },
      { name: "fn" },
    );
    for (const name of ["circular", "bigint", "fn"]) {
      const res = (await server.handle(rpc(1, "tools/call", { name, arguments: {} }))) as unknown as { result: unknown };
      assert.deepEqual(res.result, { content: [{ type: "text", text: "Tool returned a value that cannot be sent as JSON" }], isError: true }, name);
    }
  });
});
