import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../lib/index.ts";

test("a server answers ping over HTTP", async (t) => {
  const server = new McpServer("smoke");
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const res = await fetch(`${running.url}mcp`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
  assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: 1, result: {} });
});
