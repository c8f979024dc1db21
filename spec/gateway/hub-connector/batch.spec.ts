// A batch at /mcp (issue 35): what a single message is refused with stays that entry's own
// answer, a tool's broken answer included; `initialize` is sent alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";
import { BATCH_ANSWER_BYTES } from "../../../lib/gateway/hub-connector/door.ts";

const INITIALIZED = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } };
const TOOLS = { tools: ["half", "plain", "fine", "big"].map((name) => ({ name, inputSchema: { type: "object" } })) };

test("a batch at /mcp: a tool's broken answer and an initialize are those entries' errors, the rest answered", { timeout: 60_000 }, async (t) => {
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    const name = (msg.params as { name?: string } | undefined)?.name;
    if (msg.method !== "tools/call" || name === "fine") return reply(res, msg, { content: [{ type: "text", text: "fine" }] });
    if (name === "big") return reply(res, msg, { content: [{ type: "text", text: "x".repeat(Math.floor(BATCH_ANSWER_BYTES / 3)) }] });
    // Half a JSON body, and a body that is no JSON at all.
    res.writeHead(502, { "content-type": "text/plain" });
    res.end(name === "half" ? '{"jsonrpc":' : "bad gateway");
  });
  const h = await startHarness(t, { tools: { stub: { revisions: { default: { url: stub.url } } } } });
  const url = `${h.base}/mcp`;
  const initParams = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } };
  const init = await post(url, h.tokens.alice, rpc("initialize", initParams));
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  const call = (name: string, id: number) => rpc("tools/call", { name: `stub_${name}`, arguments: {} }, id);
  const batch = `[${call("half", 1)},${call("plain", 2)},${call("fine", 3)},${rpc("initialize", initParams, 4)}]`;
  const res = await post(url, h.tokens.alice, batch, session);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("mcp-session-id"), session["mcp-session-id"]);
  const body = (await res.json()) as { id: number; result?: { content: { text: string }[] }; error?: { code: number; message: string } }[];
  assert.deepEqual(
    body.map((a) => ({ id: a.id, code: a.error?.code, text: a.result?.content[0]?.text ?? a.error?.message })),
    [
      { id: 1, code: -32603, text: "The tool gave no answer to this call" },
      { id: 2, code: -32603, text: "The tool gave no answer to this call" },
      { id: 3, code: undefined, text: "fine" },
      { id: 4, code: -32600, text: "Invalid Request: send initialize alone, not in a batch" },
    ],
  );

  // Answers a batch holds together are bounded: the third answer of a third of the bound is refused alone.
  const bigs = `[${call("big", 5)},${call("big", 6)},${call("big", 7)},${call("fine", 8)}]`;
  const big = await post(url, h.tokens.alice, bigs, session);
  assert.equal(big.status, 200);
  const answers = (await big.json()) as { id: number; result?: unknown; error?: { code: number; message: string } }[];
  const refusedOnes = answers.filter((a) => a.error?.message === "The answer is too large to be held in a batch: send this call alone");
  assert.ok(refusedOnes.length === 1, JSON.stringify(answers.map((a) => [a.id, a.error?.code])));
  assert.ok(
    answers.some((a) => a.id === 8 && a.result !== undefined),
    "a small answer is still answered",
  );
  assert.equal(answers.length, 4);
});
