// The legacy SSE transport never blocks its own client. This client sends one POST at a
// time, as the official Python SDK's sse_client does: it must still answer an elicitation
// made inside a call, and run a quick call while a slow one runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

/** Posts strictly one after another: the next POST starts only once the previous one was answered. */
function serialPoster(url: string) {
  let last: Promise<unknown> = Promise.resolve();
  return (body: unknown) => {
    const sent = last.then(() => post(url, body));
    last = sent.catch(() => undefined);
    return sent;
  };
}

test("legacy /sse: a one-POST-at-a-time client answers an elicitation and runs a quick call beside a slow one", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = new McpServer("legacy");
  server.tool(
    async function ask(_args: Record<string, never>, ctx: ToolContext) {
      const answer = await ctx.elicit<{ name: string }>("Name?", { type: "object", properties: { name: { type: "string" } } });
      return answer.action === "accept" ? `hi ${answer.content.name}` : answer.action;
    },
    { inputSchema: { type: "object" }, context: true },
  );
  server.tool(
    async function slow() {
      await gate;
      return "slow done";
    },
    { inputSchema: { type: "object" } },
  );
  server.tool(
    function quick() {
      return "quick done";
    },
    { inputSchema: { type: "object" } },
  );
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());

  const stream = await openSse(`${running.url}sse`);
  t.after(() => stream.close());
  const endpoint = (await stream.until("endpoint")).data;
  const send = serialPoster(new URL(endpoint, running.url).href);

  // A quick answer keeps the interface rule: returned to the POST, and sent on the stream.
  const init = await send(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "py", version: "1" } }));
  assert.equal(init.status, 200);
  assert.equal(init.json.id, 1);
  assert.equal((await stream.nextMessage()).id, 1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });

  // The call waits on the client: its POST is released, the question arrives on the stream.
  const asking = await send(rpc(2, "tools/call", { name: "ask", arguments: {} }));
  assert.equal(asking.status, 202);
  const question = await stream.nextMessage();
  assert.equal(question.method, "elicitation/create");
  assert.equal((await send({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name: "Ada" } } })).status, 202);
  const asked = await stream.nextMessage();
  assert.deepEqual([asked.id, asked.result.content[0].text], [2, "hi Ada"]);

  // A slow call outlasts the hold and lets the POST go; a quick call is not held behind it.
  const slow = await send(rpc(3, "tools/call", { name: "slow", arguments: {} }));
  assert.equal(slow.status, 202);
  const quick = await send(rpc(4, "tools/call", { name: "quick", arguments: {} }));
  assert.deepEqual([quick.status, quick.json.result.content[0].text], [200, "quick done"]);
  assert.equal((await stream.nextMessage()).id, 4, "the quick answer is on the stream too");
  release();
  const late = await stream.nextMessage();
  assert.deepEqual([late.id, late.result.content[0].text], [3, "slow done"]);
});
