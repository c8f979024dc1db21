// A prompt's arguments are read from its handler exactly as a tool's are: a declared `?`
// (attached by start_mcp's compile step) or a default makes an argument optional, and
// prompts/get then succeeds without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";
import { PARAM_TYPES, type ParamTypes } from "../../lib/registry/param-types.ts";

function typed<F extends Function>(fn: F, types: ParamTypes): F {
  Object.defineProperty(fn, PARAM_TYPES, { value: types });
  return fn;
}

async function rpc(server: McpServer, method: string, params: object = {}): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  return (await server.handle({ jsonrpc: "2.0", id: 1, method, params })) as unknown as { result?: Record<string, unknown>; error?: unknown };
}

test("`audience?: string` and `tone = ...` are optional prompt arguments, as they are tool arguments", async () => {
  const server = new McpServer("prompts");
  const summarize = typed(
    function summarize_run(run_id: string, audience?: string, tone = "plain") {
      return `run ${run_id} for ${audience ?? "anyone"} (${tone})`;
    },
    {
      properties: { run_id: { type: "string" }, audience: { type: "string" }, tone: { type: "string" } },
      optional: ["audience"],
      params: { run_id: "which run" },
    },
  );
  server.prompt(summarize);
  server.tool(summarize, { name: "summarize_tool" });
  const listed = (await rpc(server, "prompts/list")).result!.prompts as { arguments: unknown }[];
  assert.deepEqual(listed[0]!.arguments, [
    { name: "run_id", required: true, description: "which run" },
    { name: "audience", required: false },
    { name: "tone", required: false },
  ]);
  const tool = ((await rpc(server, "tools/list")).result!.tools as { inputSchema: { required: string[] } }[])[0]!;
  assert.deepEqual(tool.inputSchema.required, ["run_id"], "the tool with the same handler agrees");
  const got = await rpc(server, "prompts/get", { name: "summarize_run", arguments: { run_id: "r1" } });
  assert.deepEqual(got.result, { messages: [{ role: "user", content: { type: "text", text: "run r1 for anyone (plain)" } }] });
  const missing = await rpc(server, "prompts/get", { name: "summarize_run", arguments: {} });
  assert.deepEqual(missing.error, { code: -32602, message: "Missing required argument: run_id" });
});

test("an untyped handler: a default makes a prompt argument optional; a plain one stays required", async () => {
  const server = new McpServer("prompts");
  server.prompt(({ topic, depth = 2 }: { topic: string; depth?: number }) => `${topic}/${depth}`, { name: "explain" });
  const listed = (await rpc(server, "prompts/list")).result!.prompts as { arguments: unknown }[];
  assert.deepEqual(listed[0]!.arguments, [
    { name: "topic", required: true },
    { name: "depth", required: false },
  ]);
  const got = await rpc(server, "prompts/get", { name: "explain", arguments: { topic: "waves" } });
  assert.deepEqual(got.result, { messages: [{ role: "user", content: { type: "text", text: "waves/2" } }] });
});

test("a required argument named like an Object.prototype member is missing until the client sends it", async () => {
  const server = new McpServer("prompts");
  server.prompt(({ constructor: c, toString: s }: { constructor: string; toString: string }) => `${c}/${s}`, { name: "odd" });
  const missing = await rpc(server, "prompts/get", { name: "odd", arguments: { toString: "b" } });
  assert.deepEqual(missing.error, { code: -32602, message: "Missing required argument: constructor" });
  const got = await rpc(server, "prompts/get", { name: "odd", arguments: { constructor: "a", toString: "b" } });
  assert.deepEqual(got.result, { messages: [{ role: "user", content: { type: "text", text: "a/b" } }] });
});
