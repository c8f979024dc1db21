// A running call holds its session like an open stream does: idle expiry waits for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";
import { post, rpc } from "../helpers/rpc.ts";

test("a session does not expire under a call that is still running; it does once idle after it", async (t) => {
  let now = 1_000_000;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const server = new McpServer("held", { sessions: { idleTimeoutMs: 1000, now: () => now } });
  server.tool(
    async () => {
      started();
      await gate;
      return "done";
    },
    { name: "long", inputSchema: { type: "object" } },
  );
  const r = await server.listen({ port: 0 });
  t.after(() => r.close());
  const init = await post(`${r.url}mcp`, rpc(1, "initialize", {}));
  const sessionId = init.headers.get("mcp-session-id")!;
  const call = post(`${r.url}mcp`, rpc(2, "tools/call", { name: "long", arguments: {} }), { "mcp-session-id": sessionId });
  await running;
  now += 60_000;
  assert.equal(server.sessions.sweep(), 0, "the running call holds the session");
  release();
  assert.deepEqual((await call).json.result, { content: [{ type: "text", text: "done" }], isError: false });
  assert.equal(server.sessions.sweep(), 0, "idle time counts from the call's end");
  now += 1000;
  assert.equal(server.sessions.sweep(), 1);
});
