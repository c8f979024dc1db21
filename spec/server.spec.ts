// Registration rules of the public McpServer API.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../lib/index.ts";
import { jsTool } from "./helpers/javascript-app.mjs";

// tsx strips comments from function source, so handlers whose doc comments matter are built from text.
const fromSource = (src: string): ((...args: never[]) => unknown) => new Function(`return (${src})`)();

async function call(server: McpServer, name: string, args: Record<string, unknown> = {}) {
  const res = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })) as unknown as {
    result: { content: { text: string }[]; isError: boolean };
  };
  return res.result;
}

async function listTools(server: McpServer) {
  const res = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" })) as unknown as { result: { tools: Record<string, unknown>[] } };
  return res.result.tools;
}

describe("McpServer", () => {
  test("needs a name; version defaults to 1.0.0", () => {
    assert.throws(() => new McpServer(""), /needs a name/);
    assert.equal(new McpServer("x").version, "1.0.0");
    assert.equal(new McpServer("x", { version: "2.0.0" }).version, "2.0.0");
  });

  test("tool name defaults to the function's name; description to its doc comment", async () => {
    const server = new McpServer("s");
    jsTool(server, fromSource("function add(a, b) {\n  /** Add two numbers.\n   * Returns the sum. */\n  return a + b;\n}"));
    const [tool] = await listTools(server);
    assert.equal(tool!.name, "add");
    assert.equal(tool!.description, "Add two numbers.\nReturns the sum.");
    assert.equal((await call(server, "add", { a: 2, b: 3 })).content[0]!.text, "5");
  });

  test("in a JavaScript app only a default types a parameter, as the README tour says (issue 34.9)", async () => {
    const server = new McpServer("s");
    jsTool(server, fromSource("function scale(x, factor = 2) { return x * factor; }"));
    const [tool] = await listTools(server);
    assert.deepEqual(tool!.inputSchema, { type: "object", properties: { x: {}, factor: { type: "number", default: 2 } }, required: ["x"] });
    assert.deepEqual((await call(server, "scale", { x: 1, factor: "abc" })).content[0]!.text, "Invalid arguments: /factor: must be number");
    assert.equal((await call(server, "scale", { x: "abc" })).content[0]!.text, "NaN", "an untyped parameter takes any JSON value");
  });

  test("explicit name and description win; bound functions lose their 'bound ' prefix", async () => {
    const server = new McpServer("s");
    function mul(this: unknown, a: number, b: number): number {
      return a * b;
    }
    server.tool(fromSource("function f() { /** doc */ return 1; }"), { name: "named", description: "explicit" });
    server.tool(mul.bind(null), { inputSchema: { type: "object", properties: { a: {}, b: {} } } });
    const tools = await listTools(server);
    assert.deepEqual(
      tools.map((t) => [t.name, t.description]),
      [
        ["named", "explicit"],
        ["mul", undefined],
      ],
    );
  });

  test("tool names must be 1-128 of [A-Za-z0-9_.-] and unique", () => {
    const server = new McpServer("s");
    assert.throws(() => server.tool(() => 1), /name "" is invalid/);
    assert.throws(() => server.tool(() => 1, { name: "has space" }), /invalid/);
    assert.throws(() => server.tool(() => 1, { name: "x".repeat(129) }), /invalid/);
    server.tool(() => 1, { name: "ok.name-1_x" });
    assert.throws(() => server.tool(() => 2, { name: "ok.name-1_x" }), /already registered/);
    server.tool(() => 1, { name: "x".repeat(128) });
  });

  test("annotations accept only the five MCP keys, and an unknown key is named", async () => {
    const server = new McpServer("s");
    assert.throws(() => server.tool(() => 1, { name: "t", annotations: { readOnly: true } as never }), /unknown annotation "readOnly"/);
    assert.throws(() => server.tool(() => 1, { name: "t", annotations: { readOnlyHint: "yes" } as never }), /must be a boolean/);
    server.tool(() => 1, {
      name: "t",
      title: "T",
      annotations: { title: "T", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      tags: ["math"],
    });
    const [tool] = await listTools(server);
    assert.deepEqual(tool!.annotations, { title: "T", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.equal(tool!.title, "T");
  });

  test("schemas must be objects with type object", () => {
    const server = new McpServer("s");
    assert.throws(() => server.tool(() => 1, { name: "a", inputSchema: { type: "array" } }), /inputSchema must be a JSON Schema object with type "object"/);
    assert.throws(() => server.tool(() => 1, { name: "b", outputSchema: { type: "string" } }), /outputSchema/);
  });

  test("the context: a second parameter, a parameter named ctx, or context: true", async () => {
    const server = new McpServer("s");
    jsTool(server, fromSource("function objectStyle({ a }, ctx) { return typeof ctx.signal + a; }"));
    jsTool(server, fromSource("function positional(a, ctx) { return typeof ctx.signal + a; }"));
    jsTool(server, fromSource("function declared(a, c) { return typeof c.signal + a; }"), { context: true });
    jsTool(server, fromSource("function plain(a, b) { return a + b; }"));
    assert.equal((await call(server, "objectStyle", { a: 1 })).content[0]!.text, "object1");
    assert.equal((await call(server, "positional", { a: 2 })).content[0]!.text, "object2");
    assert.equal((await call(server, "declared", { a: 3 })).content[0]!.text, "object3");
    assert.equal((await call(server, "plain", { a: 1, b: 2 })).content[0]!.text, "3");
    const tools = await listTools(server);
    for (const tool of tools.slice(0, 3)) {
      const props = Object.keys((tool.inputSchema as { properties: object }).properties);
      assert.ok(!props.includes("ctx") && !props.includes("c"), `${tool.name} schema has no context`);
    }
  });

  test("an unreadable handler without a schema is refused with a hint", () => {
    const server = new McpServer("s");
    const bound = function (this: unknown) {}.bind(null);
    assert.throws(() => server.tool(bound, { name: "b" }), /pass an explicit inputSchema/);
  });

  test("resources need a scheme; duplicates are refused", () => {
    const server = new McpServer("s");
    assert.throws(() => server.resource("no-scheme", () => ""), /must start with a scheme/);
    server.resource("a://x", () => "");
    assert.throws(() => server.resource("a://x", () => ""), /already registered/);
  });

  test("prompts: arguments from the handler, duplicates refused", async () => {
    const server = new McpServer("s");
    server.prompt(fromSource("function greet({ name, style = 'warm' }) { /** Greets.\n @param name who to greet */ return 'Hi ' + name + ' ' + style; }"));
    assert.throws(() => server.prompt(() => "", { name: "greet" }), /already registered/);
    const list = (await server.handle({ jsonrpc: "2.0", id: 1, method: "prompts/list" })) as unknown as { result: { prompts: unknown[] } };
    assert.deepEqual(list.result.prompts, [
      {
        name: "greet",
        description: "Greets.",
        arguments: [
          { name: "name", required: true, description: "who to greet" },
          { name: "style", required: false },
        ],
      },
    ]);
    const got = (await server.handle({ jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "greet", arguments: { name: "Ada" } } })) as unknown as {
      result: { messages: { content: { text: string } }[] };
    };
    assert.equal(got.result.messages[0]!.content.text, "Hi Ada warm");
  });

  test("handle() answers without HTTP and refuses unknown sessions", async () => {
    const server = new McpServer("s");
    assert.deepEqual(await server.handle({ jsonrpc: "2.0", id: 1, method: "ping" }), { jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" }), null);
    const batch = await server.handle([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    assert.ok(Array.isArray(batch));
    const unknown = (await server.handle({ jsonrpc: "2.0", id: 1, method: "ping" }, { sessionId: "nope" })) as unknown as { error: { code: number } };
    assert.equal(unknown.error.code, -32001);
  });

  test("handle() serves MCP 2026-07-28 as HTTP and stdio do: server/discover and a tools/call", async () => {
    const server = new McpServer("s", { version: "2.0.0" });
    server.tool(({ a, b }: { a: number; b: number }) => a / b, {
      name: "divide",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    });
    const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const discover = (await server.handle({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta } })) as unknown as {
      result: { supportedVersions: string[]; _meta: Record<string, unknown>; capabilities: { tools?: unknown } };
    };
    assert.deepEqual(discover.result.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(discover.result._meta["io.modelcontextprotocol/serverInfo"], { name: "s", version: "2.0.0" });
    assert.ok(discover.result.capabilities.tools);
    const call = (await server.handle({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { _meta, name: "divide", arguments: { a: 6, b: 3 } },
    })) as unknown as {
      result: { content: { text: string }[]; resultType?: string };
    };
    assert.equal(call.result.content[0]!.text, "2");
    // The same request without the envelope is a session-era request: no server/discover there.
    const old = (await server.handle({ jsonrpc: "2.0", id: 3, method: "server/discover", params: {} })) as unknown as { error: { code: number } };
    assert.equal(old.error.code, -32601);
    // A 2026 request runs outside any session it names; a removed method is refused as unknown.
    const removed = (await server.handle({ jsonrpc: "2.0", id: 4, method: "ping", params: { _meta } })) as unknown as { error: { code: number } };
    assert.equal(removed.error.code, -32601);
    const bare = (await server.handle({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    })) as unknown as {
      error: { code: number };
    };
    assert.equal(bare.error.code, -32602, "an incomplete envelope is refused, not served in a session");
  });

  test("ctx.server is the server itself, in a session call, a 2026 call and an async run", async () => {
    const server = new McpServer("owner");
    const seen: unknown[] = [];
    let ranAsync!: (server: unknown) => void;
    const asyncSeen = new Promise<unknown>((resolve) => (ranAsync = resolve));
    server.tool((_args: Record<string, never>, ctx) => void seen.push(ctx.server), { name: "who", inputSchema: { type: "object" }, context: true });
    server.asyncTool((_args: Record<string, never>, ctx) => ranAsync(ctx.server), { name: "later", inputSchema: { type: "object" }, context: true });
    await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "who", arguments: {} } });
    const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta, name: "who", arguments: {} } });
    await server.handle({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "later", arguments: {} } });
    assert.deepEqual(seen, [server, server]);
    assert.equal(await asyncSeen, server);
  });
});
