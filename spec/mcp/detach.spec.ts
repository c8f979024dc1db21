// ctx.detach(): the tool ends its SSE reply's connection mid-call (MCP SSE polling);
// the client resumes with GET + Last-Event-ID and receives the rest, the answer included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

test("a closed SSE reply resumes on GET with Last-Event-ID; a JSON reply ignores detach", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = new McpServer("polling");
  server.tool(
    async (_args: Record<string, never>, ctx: ToolContext) => {
      ctx.info("working");
      ctx.detach();
      await gate;
      return "done";
    },
    { name: "poll", inputSchema: { type: "object" }, context: true },
  );
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const mcp = `${running.url}mcp`;
  const both = { accept: "application/json, text/event-stream" };
  const init = await post(mcp, rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }), both);
  const session = init.headers.get("mcp-session-id")!;

  const reply = await openSse(mcp, { body: rpc(2, "tools/call", { name: "poll" }), headers: { ...both, "mcp-session-id": session } });
  assert.equal(reply.status, 200);
  const seen: string[] = [];
  let lastId = "";
  for (;;) {
    const event = await reply.next().catch(() => null);
    if (event === null) break;
    lastId = event.lastEventId;
    if (event.data.trim() !== "") seen.push(JSON.parse(event.data).method);
  }
  await reply.ended;
  // The connection ended after the log message, before the answer.
  assert.deepEqual(seen, ["notifications/message"]);
  assert.notEqual(lastId, "");

  const resumed = await openSse(mcp, { headers: { "mcp-session-id": session, "last-event-id": lastId } });
  t.after(() => resumed.close());
  release();
  const answer = await resumed.nextMessage();
  assert.deepEqual(answer, { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "done" }], isError: false } });

  const plain = await post(mcp, rpc(3, "tools/call", { name: "poll" }), { accept: "application/json", "mcp-session-id": session });
  assert.equal(plain.headers.get("content-type")?.startsWith("application/json"), true);
  assert.equal(plain.json.result.content[0].text, "done");
});
