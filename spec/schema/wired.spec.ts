// The schema layer as clients meet it, over real HTTP: argument validation on
// tools/call and POST /tools/<name>, defaults filled before the handler runs,
// outputSchema checks and required prompt arguments.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { McpServer, s, type RunningServer } from "../../lib/index.ts";
import { post, rpc } from "../helpers/rpc.ts";

const SECRET = "hunter2-secret-value";
let running: RunningServer;
let mcp: string;
let seen: unknown[] = [];

before(async () => {
  const server = new McpServer("wired-test");
  server.tool(
    (args: Record<string, unknown>) => {
      seen.push(args);
      return "ok";
    },
    {
      name: "configure",
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          count: { type: "integer", minimum: 0, default: 3 },
          options: {
            type: "object",
            properties: { depth: { type: "integer", default: 2 }, mode: { enum: ["fast", "slow"], default: "fast" } },
            additionalProperties: false,
          },
          points: { type: "array", items: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
        },
        required: ["name"],
      },
    },
  );
  server.tool(({ a, b }) => a + b, { name: "add", input: { a: s.number(), b: s.number().default(2) } });
  server.tool(() => ({ range_m: "far", nested: { ok: 1 } }), {
    name: "bad_output",
    outputSchema: {
      type: "object",
      properties: { range_m: { type: "number" }, nested: { type: "object", properties: { ok: { type: "boolean" } } } },
      required: ["range_m", "missing"],
    },
  });
  server.tool(() => ({ range_m: 1 }), {
    name: "good_output",
    outputSchema: { type: "object", properties: { range_m: { type: "number" } }, required: ["range_m"] },
  });
  server.prompt((topic: string, level = "intro") => `Explain ${topic} (${level})`, { name: "explain" });
  running = await server.listen({ port: 0 });
  mcp = `${running.url}mcp`;
});
after(() => running.close());

const callTool = async (name: string, args: unknown) => {
  const reply = await post(mcp, rpc(1, "tools/call", { name, arguments: args }));
  assert.equal(reply.status, 200);
  return reply.json.result as { content: Array<{ type: string; text: string }>; isError?: boolean; structuredContent?: unknown };
};

test("tools/call: failing arguments give an isError result listing every path, never the values", async () => {
  seen = [];
  const result = await callTool("configure", { name: "", count: -1.5, options: { mode: SECRET, extra: SECRET }, points: [{ y: SECRET }] });
  assert.equal(result.isError, true);
  assert.equal(
    result.content[0]!.text,
    "Invalid arguments: /name: must be at least 1 characters long; /count: must be integer; " +
      '/options/mode: must be one of "fast", "slow"; /options/extra: is not allowed; /points/0/x: is required',
  );
  assert.ok(!result.content[0]!.text.includes(SECRET));
  assert.deepEqual(seen, []);
  const missing = await callTool("add", {});
  assert.deepEqual(missing.content, [{ type: "text", text: "Invalid arguments: /a: is required" }]);
});

test("POST /tools/<name>: failing arguments give 400 with the paths", async () => {
  const reply = await post(`${running.url}tools/configure`, { count: "x", password: SECRET });
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.json, { error: "Invalid arguments: /name: is required; /count: must be integer" });
  assert.ok(!reply.text.includes(SECRET));
  const ok = await post(`${running.url}tools/add`, { a: 1 });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json, { result: "3" });
});

test("defaults are filled in, nested ones too, before the handler runs", async () => {
  seen = [];
  assert.ok(!(await callTool("configure", { name: "n", options: { mode: "slow" } })).isError);
  assert.ok(!(await callTool("configure", { name: "n", count: 0 })).isError);
  assert.deepEqual(seen, [
    { name: "n", count: 3, options: { mode: "slow", depth: 2 } },
    { name: "n", count: 0 },
  ]);
  assert.equal((await callTool("add", { a: 40 })).content[0]!.text, "42");
});

test("a structured result that misses the outputSchema is an isError result naming the path", async () => {
  const bad = await callTool("bad_output", {});
  assert.equal(bad.isError, true);
  assert.equal(
    bad.content[0]!.text,
    "Output does not match the tool's outputSchema: /range_m: must be number; /nested/ok: must be boolean; /missing: is required",
  );
  assert.equal(bad.structuredContent, undefined);
  const good = await callTool("good_output", {});
  assert.deepEqual(good.structuredContent, { range_m: 1 });
});

test("prompts/get checks required arguments", async () => {
  const missing = await post(mcp, rpc(2, "prompts/get", { name: "explain", arguments: {} }));
  assert.equal(missing.json.error.code, -32602);
  assert.match(missing.json.error.message, /topic/);
  const ok = await post(mcp, rpc(3, "prompts/get", { name: "explain", arguments: { topic: "waves" } }));
  assert.equal(ok.json.result.messages[0].content.text, "Explain waves (intro)");
});

test("a malformed schema is refused at registration, naming the location", () => {
  const server = new McpServer("malformed");
  assert.throws(() => server.tool(() => 1, { name: "bad_in", inputSchema: { type: "object", properties: { n: { type: "number", minimum: "0" } } } }), {
    name: "TypeError",
    message: "Tool bad_in: inputSchema: Invalid schema at #/properties/n/minimum: must be a number",
  });
  assert.throws(() => server.tool(() => 1, { name: "bad_out", inputSchema: { type: "object" }, outputSchema: { type: "object", $ref: "#/$defs/nope" } }), {
    name: "TypeError",
    message: "Tool bad_out: outputSchema: Invalid schema at #/$ref: points at nothing",
  });
});
