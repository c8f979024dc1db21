// The elicitation flow over raw HTTP against the demo's `ask_user`:
// GET /mcp → endpoint → initialize with the elicitation capability on that session →
// tools/call → elicitation/create on the stream → answer POSTed with the same id → result.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { server } from "../../fixtures/demo/app.ts";
import { openEvents, post, rpc, type EventReader, type Reply } from "../helpers/rpc.ts";
import { openSse } from "../helpers/sse-client.ts";

const running = await server.listen({ host: "127.0.0.1", port: 0 });
after(() => running.close());
const base = running.url.replace(/\/$/, "");
const JSON_ONLY = { accept: "application/json" };

interface Client {
  stream: EventReader;
  /** `/mcp?session_id=...`, as the endpoint event names it. */
  endpoint: string;
  sessionId: string;
}

/** The next JSON-RPC message on the stream, skipping priming and other non-message events. */
async function nextMessage(stream: EventReader): Promise<Record<string, any>> {
  for (;;) {
    const event = await stream.next();
    if (event.event === "message" && event.data.trim() !== "") return JSON.parse(event.data);
  }
}

async function connect(capabilities: Record<string, unknown>): Promise<Client> {
  const stream = await openEvents(`${base}/mcp`);
  let endpoint = "";
  for (;;) {
    const event = await stream.next();
    if (event.event === "endpoint") {
      endpoint = event.data;
      break;
    }
  }
  assert.match(endpoint, /^\/mcp\?session_id=[\x21-\x7e]+$/);
  const sessionId = new URL(endpoint, base).searchParams.get("session_id")!;
  const init = await post(
    `${base}${endpoint}`,
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "raw", version: "1" } }),
    JSON_ONLY,
  );
  assert.equal(init.status, 200);
  assert.equal(init.json.result.protocolVersion, "2025-11-25");
  assert.equal((await post(`${base}${endpoint}`, { jsonrpc: "2.0", method: "notifications/initialized" }, JSON_ONLY)).status, 202);
  return { stream, endpoint, sessionId };
}

const callAskUser = (c: Client, args: Record<string, unknown> = {}): Promise<Reply> =>
  post(`${base}${c.endpoint}`, rpc("call-1", "tools/call", { name: "ask_user", arguments: args }), JSON_ONLY);

async function elicitation(c: Client): Promise<Record<string, any>> {
  const request = await nextMessage(c.stream);
  assert.equal(request.method, "elicitation/create");
  assert.match(request.id, /^server-[0-9a-f-]{36}$/);
  assert.equal(request.params.mode, "form");
  assert.equal(request.params.message, "What is your name?");
  assert.deepEqual(request.params.requestedSchema.required, ["name"]);
  return request;
}

const answer = (c: Client, id: unknown, result: Record<string, unknown>) => post(`${base}${c.endpoint}`, { jsonrpc: "2.0", id, result }, JSON_ONLY);

function text(reply: Reply): { text: string; isError: boolean } {
  assert.equal(reply.status, 200);
  return { text: reply.json.result.content[0].text, isError: reply.json.result.isError };
}

test("accept: the answer POSTed with the same id completes the call; strays change nothing", async (t) => {
  const c = await connect({ elicitation: { form: {} } });
  const other = await connect({ elicitation: {} });
  t.after(() => (c.stream.close(), other.stream.close()));
  const call = callAskUser(c);
  const request = await elicitation(c);
  const stray = await answer(c, "server-00000000-0000-4000-8000-000000000000", { action: "accept", content: { name: "Mallory" } });
  assert.equal(stray.status, 202);
  const foreign = await answer(other, request.id, { action: "accept", content: { name: "Eve" } });
  assert.deepEqual([foreign.status, foreign.json], [202, { status: "accepted" }]);
  const reply = await answer(c, request.id, { action: "accept", content: { name: "Ada" } });
  assert.deepEqual([reply.status, reply.json], [202, { status: "accepted" }]);
  assert.deepEqual(text(await call), { text: "Hello, Ada!", isError: false });
  // A duplicate answer after the call completed is accepted and ignored.
  assert.equal((await answer(c, request.id, { action: "decline" })).status, 202);
});

test("decline and cancel are ordinary answers", async (t) => {
  const c = await connect({ elicitation: {} });
  t.after(() => c.stream.close());
  for (const [action, expected] of [
    ["decline", "You declined to give your name."],
    ["cancel", "You cancelled the question."],
  ]) {
    const call = callAskUser(c);
    const request = await elicitation(c);
    assert.equal((await answer(c, request.id, { action })).status, 202);
    assert.deepEqual(text(await call), { text: expected, isError: false });
  }
});

test("timeout: no answer within the per-call timeout fails inside the handler; a late answer changes nothing", async (t) => {
  const c = await connect({ elicitation: {} });
  t.after(() => c.stream.close());
  const call = callAskUser(c, { timeout: 0.05 });
  const request = await elicitation(c);
  const result = text(await call);
  assert.equal(result.isError, true);
  assert.match(result.text, /^Could not ask for your name: The client did not answer elicitation\/create within 0\.05 s$/);
  assert.equal((await answer(c, request.id, { action: "accept", content: { name: "Late" } })).status, 202);
});

test("no capability: the handler gets a clear error and nothing is sent", async (t) => {
  const c = await connect({});
  t.after(() => c.stream.close());
  const result = text(await callAskUser(c));
  assert.deepEqual(result, { text: "Could not ask for your name: The client did not declare the form elicitation capability", isError: true });
  const ping = await post(`${base}${c.endpoint}`, rpc(2, "ping"), JSON_ONLY);
  assert.deepEqual(ping.json.result, {});
});

test("a malformed answer fails the wait instead of hanging it", async (t) => {
  const c = await connect({ elicitation: {} });
  t.after(() => c.stream.close());
  const call = callAskUser(c);
  const request = await elicitation(c);
  assert.equal((await answer(c, request.id, { action: "accept", content: { name: 42 } })).status, 202);
  const result = text(await call);
  assert.equal(result.isError, true);
  assert.match(result.text, /does not match the requested schema/);
});

test("stream closed mid-wait: the call still ends by its timeout and the server keeps serving", async () => {
  const c = await connect({ elicitation: {} });
  const call = callAskUser(c, { timeout: 0.2 });
  await elicitation(c);
  c.stream.close();
  const result = text(await call);
  assert.equal(result.isError, true);
  assert.match(result.text, /did not answer elicitation\/create/);
  const fresh = await connect({ elicitation: {} });
  fresh.stream.close();
  assert.equal((await post(`${base}${c.endpoint}`, rpc(3, "ping"), JSON_ONLY)).json.result !== undefined, true);
});

test("session ended mid-wait: the pending elicitation fails at once in the handler", async () => {
  const c = await connect({ elicitation: {} });
  const call = callAskUser(c);
  await elicitation(c);
  const ended = await fetch(`${base}/mcp`, { method: "DELETE", headers: { "mcp-session-id": c.sessionId } });
  await ended.arrayBuffer();
  assert.equal(ended.status, 200);
  const result = text(await call);
  assert.deepEqual(result, { text: "Could not ask for your name: The session ended before the client answered", isError: true });
  c.stream.close();
});

test("no stream to carry the question: the handler is told at once", async () => {
  const init = await post(
    `${base}/mcp`,
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } }),
    JSON_ONLY,
  );
  const session = init.headers.get("mcp-session-id")!;
  const reply = await post(`${base}/mcp`, rpc(2, "tools/call", { name: "ask_user", arguments: {} }), { ...JSON_ONLY, "mcp-session-id": session });
  assert.deepEqual(text(reply), { text: "Could not ask for your name: No open stream to the client could carry elicitation/create", isError: true });
});

test("a POST that accepts SSE carries the question and then the answer on its own stream", async (t) => {
  const both = { accept: "application/json, text/event-stream" };
  const init = await post(
    `${base}/mcp`,
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } }),
    both,
  );
  const session = init.headers.get("mcp-session-id")!;
  const call = await openSse(`${base}/mcp`, {
    body: rpc(2, "tools/call", { name: "ask_user", arguments: {} }),
    headers: { ...both, "mcp-session-id": session },
  });
  t.after(() => call.close());
  const request = await call.nextMessage();
  assert.equal(request.method, "elicitation/create");
  const answered = await post(
    `${base}/mcp`,
    { jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { name: "Grace" } } },
    { ...both, "mcp-session-id": session },
  );
  assert.equal(answered.status, 202);
  const response = await call.nextMessage();
  assert.deepEqual(response, { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "Hello, Grace!" }], isError: false } });
});
