// `/mcp` answers what lib/mcp decides, as a tool server does: the same cases sent to a
// tool server and to the gateway's /mcp in front of it get the same statuses and codes (a
// 2026-07-28 envelope without its headers, a version header naming no revision, a
// cancellation reaching the tool), and /mcp advertises one set of capabilities in both revisions.
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { after, test } from "node:test";
import { McpServer, type ToolContext } from "../../../lib/index.ts";
import { post, rpc, startHarness } from "../helpers.ts";

const V = "2026-07-28";
let started!: () => void;
let aborted = 0;
/** "started" and "aborted" for each call of `wait`. */
const waits = new EventEmitter();
const server = new McpServer("cmp", { version: "1" });
server.tool(
  async function wait(_args: Record<string, unknown>, ctx: ToolContext) {
    started();
    waits.emit("started");
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    aborted++;
    waits.emit("aborted");
    return "too late";
  },
  { inputSchema: { type: "object", properties: {} } },
);
server.tool(
  async function echo(args: { text: string }) {
    return `echo ${args.text}`;
  },
  { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
);
let askAborted!: () => void;
server.tool(
  async function ask(_args: Record<string, unknown>, ctx: ToolContext) {
    ctx.signal.addEventListener("abort", () => askAborted(), { once: true });
    const answer = await ctx.elicit("Name?", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    return JSON.stringify(answer);
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

/** A batch's answer reduced to what must match: status, and each answer's id, kind, error code and text. */
async function batchShape(res: Response): Promise<unknown> {
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!Array.isArray(body)) return { status: res.status, code: (body as { error?: { code?: unknown } } | undefined)?.error?.code };
  const answers = (body as { id: unknown; result?: { content?: { text?: string }[] }; error?: { code: number } }[]).map((a) =>
    a.error ? { id: a.id, code: a.error.code } : { id: a.id, result: a.result?.content?.[0]?.text ?? "ok" },
  );
  return { status: res.status, answers };
}

async function batchCases(target: Target): Promise<Record<string, unknown>> {
  const session = await initialized(target);
  const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  const mixed = `[${rpc("ping", {}, 1)},${rpc("tools/list", {}, 2)},${rpc("tools/call", { name: target.tool, arguments: { text: "hi" } }, 3)},${note},${rpc("no/such", {}, 4)}]`;
  const oversized = `[${Array.from({ length: 101 }, (_, i) => rpc("ping", {}, i)).join(",")}]`;
  return {
    mixed: await batchShape(await post(target.url, target.token, mixed, session)),
    empty: await batchShape(await post(target.url, target.token, "[]", session)),
    oversized: await batchShape(await post(target.url, target.token, oversized, session)),
    notesOnly: await batchShape(await post(target.url, target.token, `[${note},${note}]`, session)),
    allInvalid: await batchShape(await post(target.url, target.token, `[1,${JSON.stringify({ jsonrpc: "2.0", id: 7 })}]`, session)),
    stateless: await batchShape(await post(target.url, target.token, `[${rpc("ping")}]`, { ...session, "mcp-protocol-version": V })),
  };
}

test("a batch: /mcp answers each message as the tool server does, within the same bounds", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const direct = await batchCases({ url: `${running.url}mcp`, token: undefined, tool: "echo" });
  const front = await batchCases({ url: `${h.base}/mcp`, token: h.tokens.alice, tool: "cmp_echo" });
  assert.deepEqual(direct, {
    mixed: {
      status: 200,
      answers: [
        { id: 1, result: "ok" },
        { id: 2, result: "ok" },
        { id: 3, result: "echo hi" },
        { id: 4, code: -32601 },
      ],
    },
    empty: { status: 400, code: -32600 },
    oversized: { status: 400, code: -32600 },
    notesOnly: { status: 202, code: undefined },
    // Nothing in it could be served: refused whole, each entry's error in the answer.
    allInvalid: {
      status: 400,
      answers: [
        { id: null, code: -32600 },
        { id: 7, code: -32600 },
      ],
    },
    stateless: { status: 400, code: -32600 },
  });
  assert.deepEqual(front, direct);
});

test("a batch at /mcp: a call whose tool asks the client is refused alone and cancelled at the tool, the others answered", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "c", version: "1" } }),
  );
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  const toolSawIt = new Promise<void>((resolve) => (askAborted = resolve));
  const res = await post(url, h.tokens.alice, `[${rpc("tools/call", { name: "cmp_ask", arguments: {} }, 1)},${rpc("ping", {}, 2)}]`, session);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { id: number; result?: unknown; error?: { code: number; message: string } }[];
  assert.equal(body.length, 2);
  assert.equal(body[0]!.id, 1);
  assert.equal(body[0]!.error?.code, -32600);
  assert.match(body[0]!.error!.message, /asked the client \(elicitation\/create\).*send this call alone/);
  assert.deepEqual(body[1], { jsonrpc: "2.0", id: 2, result: {} });
  await toolSawIt;
});

async function times(event: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await once(waits, event);
}

test("a batch at /mcp: a call the gateway refuses (the person's running bound) is that entry's error; calls cancelled meanwhile are left out", {
  timeout: 60_000,
}, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } }, limits: { upstreamRequestsPerUser: 2 } });
  const url = `${h.base}/mcp`;
  const session = await initialized({ url, token: h.tokens.alice, tool: "cmp_wait" });
  started = () => {};
  const bothRunning = times("started", 2);
  const call = (id: number) => rpc("tools/call", { name: "cmp_wait", arguments: {} }, id);
  const batch = post(url, h.tokens.alice, `[${call(1)},${call(2)},${call(3)}]`, session);
  await bothRunning;
  for (const requestId of [1, 2, 3]) {
    const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
    assert.equal((await post(url, h.tokens.alice, cancel, session)).status, 202);
  }
  const res = await batch;
  assert.equal(res.status, 200);
  const body = (await res.json()) as { id: number; error?: { code: number; message: string } }[];
  assert.equal(body.length, 1);
  assert.equal(body[0]!.error?.code, -32603);
  assert.match(body[0]!.error!.message, /At most 2 of your requests/);
});

test("a batch at /mcp: the client leaving ends its calls as it ends one call", { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t, { tools: { cmp: { revisions: { default: { url: running.url } } } } });
  const url = `${h.base}/mcp`;
  const session = await initialized({ url, token: h.tokens.alice, tool: "cmp_wait" });
  started = () => {};
  const runningNow = times("started", 1);
  const left = new AbortController();
  const batch = fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${h.tokens.alice}`, ...session },
    body: `[${rpc("tools/call", { name: "cmp_wait", arguments: {} }, 9)}]`,
    signal: left.signal,
  });
  await runningNow;
  const toolSawIt = times("aborted", 1);
  left.abort();
  await assert.rejects(batch);
  await toolSawIt;
});
