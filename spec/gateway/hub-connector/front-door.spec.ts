// `/mcp` answers what lib/mcp decides, as a tool server does: the same cases sent to a
// tool server and to the gateway's /mcp in front of it get the same statuses and codes (a
// 2026-07-28 envelope without its headers, a version header naming no revision, a
// cancellation reaching the tool), and /mcp advertises one set of capabilities in both revisions.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { McpServer, type ToolContext } from "../../../lib/index.ts";
import { post, rpc, startHarness } from "../helpers.ts";

const V = "2026-07-28";
let started!: () => void;
let aborted = 0;
const server = new McpServer("cmp", { version: "1" });
server.tool(
  async function wait(_args: Record<string, unknown>, ctx: ToolContext) {
    started();
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    aborted++;
    return "too late";
  },
  { inputSchema: { type: "object", properties: {} } },
);
server.resource("note://a", () => "a", { name: "a" });
const running = await server.listen({ host: "127.0.0.1", port: 0 });
after(() => running.close());

interface Target {
  url: string;
  token: string | undefined;
  tool: string;
}

async function answered(res: Response): Promise<{ status: number; code: unknown }> {
  const text = await res.text();
  const body = text ? (JSON.parse(text) as { error?: { code?: unknown } }) : {};
  return { status: res.status, code: body.error?.code };
}

async function initialized(target: Target): Promise<Record<string, string>> {
  const init = await post(
    target.url,
    target.token,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }),
  );
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  return { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
}

/** Each case as one target answers it. */
async function cases(target: Target): Promise<Record<string, unknown>> {
  const envelope = { _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } };
  const noHeader = await answered(await post(target.url, target.token, rpc("tools/list", envelope)));
  const noMethodHeader = await answered(await post(target.url, target.token, rpc("tools/list", envelope), { "mcp-protocol-version": V }));
  const badVersion = await answered(await post(target.url, target.token, rpc("ping"), { "mcp-protocol-version": "1999-01-01" }));

  const session = await initialized(target);
  const running = new Promise<void>((r) => (started = r));
  const before = aborted;
  const call = post(target.url, target.token, rpc("tools/call", { name: target.tool, arguments: {} }, 5), session);
  await running;
  const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "changed my mind" } });
  const cancelled = (await post(target.url, target.token, cancel, session)).status;
  const callAnswer = await answered(await call);
  return { noHeader, noMethodHeader, badVersion, cancelled, callAnswer, toolSawIt: aborted === before + 1 };
}

test("a tool server and /mcp in front of it answer the same cases alike", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const direct = await cases({ url: `${running.url}mcp`, token: undefined, tool: "wait" });
  const front = await cases({ url: `${h.base}/mcp`, token: h.tokens.alice, tool: "cmp_wait" });
  assert.deepEqual(direct, {
    noHeader: { status: 400, code: -32020 },
    noMethodHeader: { status: 400, code: -32020 },
    badVersion: { status: 400, code: -32600 },
    cancelled: 202,
    callAnswer: { status: 202, code: undefined },
    toolSawIt: true,
  });
  assert.deepEqual(front, direct);
});

test("/mcp advertises resources.subscribe alike in initialize and server/discover", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  const session = ((await init.json()) as { result: { capabilities: { resources: { subscribe?: boolean } } } }).result.capabilities;
  const meta = { _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } };
  const found = await post(url, h.tokens.alice, rpc("server/discover", meta), { "mcp-protocol-version": V, "mcp-method": "server/discover" });
  assert.equal(found.status, 200);
  const discovered = ((await found.json()) as { result: { capabilities: { resources: { subscribe?: boolean } } } }).result.capabilities;
  assert.equal(session.resources.subscribe, true);
  assert.equal(discovered.resources.subscribe, session.resources.subscribe);
});

test("a batch: a tool server answers each message, /mcp refuses the whole body (400), as its docs say", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const batch = `[${rpc("ping", {}, 1)},${rpc("ping", {}, 2)}]`;
  const direct = await post(`${running.url}mcp`, undefined, batch);
  assert.equal(direct.status, 200);
  assert.equal(((await direct.json()) as unknown[]).length, 2);
  assert.deepEqual(await answered(await post(`${h.base}/mcp`, h.tokens.alice, batch)), { status: 400, code: -32600 });
});
