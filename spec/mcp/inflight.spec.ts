// Cancellation (MCP basic/utilities/cancellation): the in-flight registry, and over HTTP
// `notifications/cancelled` aborting the handler and dropping its answer, and a client that
// hangs up on a session-less POST aborting it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { InFlight } from "../../lib/mcp/inflight.ts";
import { Session } from "../../lib/session/session.ts";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

test("registry: lazy signals, cancel before or after the signal is read, outer aborts, end and reuse", () => {
  const inflight = new InFlight();
  const session = new Session("s", 0);
  const other = new Session("o", 0);
  const outer = new AbortController();
  let outerReads = 0;
  const a = inflight.begin(session, 1, {
    get signal() {
      outerReads++;
      return outer.signal;
    },
  });
  assert.equal(outerReads, 0, "nothing made until someone asks");
  assert.equal(inflight.count(session), 1);
  assert.equal(inflight.cancel(other, 1), false, "another session cannot cancel it");
  assert.equal(inflight.cancel(session, "1"), false, "ids keep their type");
  assert.equal(inflight.cancel(session, 1), true);
  assert.equal(a.cancelled, true);
  assert.equal(a.signal.aborted, true, "a signal read after the cancel is already aborted");
  a.cancel();
  inflight.end(session, a);
  assert.equal(inflight.count(session), 0);

  const b = inflight.begin(session, 2, outer);
  const signal = b.signal;
  assert.equal(b.signal, signal, "one controller per call");
  outer.abort();
  assert.equal(signal.aborted, true, "the transport's abort reaches the handler");
  b.end();

  const c = inflight.begin(session, 3, {});
  const c2 = inflight.begin(session, 3, {});
  inflight.end(session, c);
  assert.equal(inflight.count(session), 1, "the older entry's end leaves the newer one");
  inflight.cancel(session, 3);
  assert.equal([c.cancelled, c2.cancelled].join(), "false,true");
  inflight.end(session, c2);
  assert.equal(inflight.count(session), 0);
  assert.equal(inflight.begin(session, 4, { signal: AbortSignal.abort() }).signal.aborted, true);
});

test("registry: overlapping calls of one session are each found, cancelled and ended on their own", () => {
  const inflight = new InFlight();
  const session = new Session("s", 0);
  const first = inflight.begin(session, "a", {});
  const second = inflight.begin(session, "b", {});
  const third = inflight.begin(session, 7, {});
  assert.equal(inflight.count(session), 3);
  assert.equal(inflight.cancel(session, "b"), true);
  assert.deepEqual([first.cancelled, second.cancelled, third.cancelled], [false, true, false]);
  first.end();
  assert.equal(inflight.cancel(session, "a"), false, "an ended call is gone");
  const again = inflight.begin(session, 7, {});
  third.end();
  assert.equal(inflight.count(session), 2, "ending the replaced call leaves its successor");
  assert.equal(inflight.cancel(session, 7), true);
  assert.equal(again.cancelled, true);
  second.end();
  again.end();
  assert.equal(inflight.count(session), 0);
  assert.equal(inflight.cancel(session, 7), false);
});

const events: string[] = [];
let aborted!: (reason: string) => void;
let abortSeen = new Promise<string>((r) => (aborted = r));
let started!: () => void;
let startSeen = new Promise<void>((r) => (started = r));
const server = new McpServer("cancel");
server.tool(
  async function wait(_args: Record<string, unknown>, ctx: ToolContext) {
    ctx.info("waiting");
    started();
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    aborted(String((ctx.signal.reason as Error | undefined)?.message));
    events.push("handler saw the abort");
    return "too late";
  },
  { inputSchema: { type: "object", properties: {} } },
);
const running = await server.listen({ port: 0 });
after(() => running.close());
const mcp = `${running.url}mcp`;
const call = (id: number | string) => rpc(id, "tools/call", { name: "wait", arguments: {} });

async function session(): Promise<string> {
  const init = await post(mcp, rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }));
  return init.headers.get("mcp-session-id")!;
}

function reset(): void {
  abortSeen = new Promise<string>((r) => (aborted = r));
  startSeen = new Promise<void>((r) => (started = r));
}

test("notifications/cancelled aborts the handler; the JSON answer is dropped (202, no JSON-RPC response)", async () => {
  reset();
  const id = await session();
  const stream = await openSse(mcp, { headers: { "mcp-session-id": id } });
  await stream.opened();
  const pending = post(mcp, call("c-1"), { accept: "application/json", "mcp-session-id": id });
  assert.equal((await stream.nextMessage()).params.data, "waiting");
  const wrongSession = await session();
  await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c-1" } }, { "mcp-session-id": wrongSession });
  const cancel = await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c-1", reason: "user" } }, { "mcp-session-id": id });
  assert.deepEqual([cancel.status, cancel.json], [202, { status: "accepted" }]);
  assert.equal(await abortSeen, "The client cancelled the request");
  const answer = await pending;
  assert.deepEqual([answer.status, answer.json], [202, { status: "accepted" }]);
  stream.close();
});

test("a cancelled call on an SSE reply: the stream ends without the response", async (t) => {
  reset();
  const id = await session();
  const c = await openSse(mcp, { body: call(41), headers: { accept: "application/json, text/event-stream", "mcp-session-id": id } });
  t.after(() => c.close());
  assert.equal((await c.nextMessage()).params.data, "waiting");
  await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41 } }, { "mcp-session-id": id });
  await abortSeen;
  const rest: string[] = [];
  for (;;) {
    try {
      rest.push((await c.next()).data);
    } catch {
      break;
    }
  }
  assert.deepEqual(rest, [], "nothing after the cancel, and the stream ended");
  // Cancelling something that already finished, or never existed, changes nothing.
  assert.equal((await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41 } }, { "mcp-session-id": id })).status, 202);
  assert.equal((await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: {} }, { "mcp-session-id": id })).status, 202);
});

test("a client that hangs up on a session-less POST aborts the call", async () => {
  reset();
  const req = request(mcp, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" } });
  req.on("error", () => {});
  req.end(JSON.stringify(call(7)));
  await startSeen;
  req.destroy();
  assert.equal(await abortSeen, "The client went away");
  assert.equal((await post(mcp, rpc(8, "ping"))).status, 200, "the server keeps serving");
});

test("a session call whose SSE reply is dropped is not aborted: its answer can still be resumed", async () => {
  reset();
  const id = await session();
  const c = await openSse(mcp, { body: call(9), headers: { accept: "application/json, text/event-stream", "mcp-session-id": id } });
  const waiting = await c.next();
  await c.next();
  c.close();
  await c.ended;
  await post(mcp, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } }, { "mcp-session-id": id });
  assert.equal(await abortSeen, "The client cancelled the request", "only the explicit cancel stopped it");
  assert.ok(waiting.hasId);
});
