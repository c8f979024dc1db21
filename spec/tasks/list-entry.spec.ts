// An async tool's outputSchema is listed only to clients that can receive its structured
// result (through a task); job clients would otherwise reject the job handle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";

const outputSchema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };

async function listed(server: McpServer, params: Record<string, unknown>, sessionId?: string) {
  const res = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list", params }, sessionId ? { sessionId } : {})) as unknown as {
    result: { tools: { name: string; outputSchema?: unknown }[] };
  };
  return Object.fromEntries(res.result.tools.map((t) => [t.name, t.outputSchema]));
}

test("async outputSchema: hidden from job clients, shown to task-capable ones", async () => {
  const server = new McpServer("s");
  server.asyncTool(async () => ({ total: 1 }), { name: "slow", inputSchema: { type: "object" }, outputSchema });
  server.tool(() => ({ total: 1 }), { name: "fast", inputSchema: { type: "object" }, outputSchema });
  const plain = await listed(server, {});
  assert.equal(plain.slow, undefined);
  assert.deepEqual(plain.fast, outputSchema);
  const seed = await listed(server, { _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } });
  assert.deepEqual(seed.slow, outputSchema);

  const session = server.sessions.create()!;
  session.clientCapabilities = { tasks: {} };
  assert.deepEqual((await listed(server, {}, session.id)).slow, outputSchema);
});

test("the built-in get_job_result cannot be removed, so jobs of a removed tool stay pollable", () => {
  const server = new McpServer("s");
  server.asyncTool(async () => 1, { name: "slow", inputSchema: { type: "object" } });
  assert.throws(() => server.removeTool("get_job_result"), /built in once async tools are used/);
  assert.equal(server.removeTool("slow"), true);
  server.asyncTool(async () => 2, { name: "slow2", inputSchema: { type: "object" } });
  assert.throws(() => server.removeTool("get_job_result"), /built in/);
});
