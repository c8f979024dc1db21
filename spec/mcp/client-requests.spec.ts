import { test } from "node:test";
import assert from "node:assert/strict";
import { type ClientRequestError, ClientRequests } from "../../lib/mcp/client-requests.ts";
import type { JsonRpcMessage, JsonRpcRequest } from "../../lib/util/jsonrpc.ts";
import { Session } from "../../lib/session/session.ts";

function capture() {
  const sent: JsonRpcRequest[] = [];
  let notify: (() => void) | null = null;
  return {
    sent,
    send: (m: JsonRpcMessage) => {
      sent.push(m as JsonRpcRequest);
      notify?.();
    },
    /** Resolves once the next request went out. */
    next: () => new Promise<JsonRpcRequest>((resolve) => (notify = () => resolve(sent.at(-1)!))),
  };
}

test("a request gets a server- id and resolves with the matching answer", async () => {
  const requests = new ClientRequests();
  const session = new Session("s1", Date.now());
  const out = capture();
  const pending = requests.request(session, out.send, "roots/list", {}, { timeoutMs: 5000 });
  const sent = out.sent[0]!;
  assert.match(String(sent.id), /^server-[0-9a-f-]{36}$/);
  assert.equal(sent.method, "roots/list");
  assert.equal(requests.size, 1);
  assert.equal(requests.settle({ jsonrpc: "2.0", id: sent.id, result: { roots: [] } }, session), true);
  assert.deepEqual(await pending, { roots: [] });
  assert.equal(requests.size, 0);
  // A duplicate answer changes nothing.
  assert.equal(requests.settle({ jsonrpc: "2.0", id: sent.id, result: { roots: [1] } }, session), false);
});

test("an unknown id, a session-less answer or another session's answer changes nothing", async () => {
  const requests = new ClientRequests();
  const mine = new Session("mine", Date.now());
  const other = new Session("other", Date.now());
  const out = capture();
  const pending = requests.request(mine, out.send, "ping", {}, { timeoutMs: 5000 });
  const id = out.sent[0]!.id;
  assert.equal(requests.settle({ jsonrpc: "2.0", id: "server-nope", result: {} }, mine), false);
  assert.equal(requests.settle({ jsonrpc: "2.0", id, result: {} }, other), false);
  assert.equal(requests.settle({ jsonrpc: "2.0", id, result: {} }, null), false);
  assert.equal(requests.size, 1);
  requests.settle({ jsonrpc: "2.0", id, result: { ok: true } }, mine);
  assert.deepEqual(await pending, { ok: true });
});

test("an error answer and a malformed answer reject with stable codes", async () => {
  const requests = new ClientRequests();
  const session = new Session("s", Date.now());
  const out = capture();
  const a = requests.request(session, out.send, "sampling/createMessage", {}, { timeoutMs: 5000 });
  requests.settle({ jsonrpc: "2.0", id: out.sent[0]!.id, error: { code: -1, message: "User rejected sampling" } }, session);
  await assert.rejects(a, (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_ERROR" && err.rpcCode === -1 && !err.message.includes("User"));
  const b = requests.request(session, out.send, "roots/list", {}, { timeoutMs: 5000 });
  requests.settle({ jsonrpc: "2.0", id: out.sent[1]!.id, result: "nope" } as never, session);
  await assert.rejects(b, (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_INVALID_ANSWER");
});

test("no answer in time rejects with timeout", async () => {
  const requests = new ClientRequests();
  const out = capture();
  const pending = requests.request(new Session("s", Date.now()), out.send, "roots/list", {}, { timeoutMs: 20 });
  await assert.rejects(pending, (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_TIMEOUT" && /within 0.02 s/.test(err.message));
  assert.equal(requests.size, 0);
  // The client is told the request is withdrawn.
  assert.deepEqual(out.sent[1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: out.sent[0]!.id, reason: "The client did not answer roots/list within 0.02 s" },
  });
});

test("ending the session rejects what waits in it, and only that", async () => {
  const requests = new ClientRequests();
  const ending = new Session("a", Date.now());
  const staying = new Session("b", Date.now());
  const out = capture();
  const lost = requests.request(ending, out.send, "roots/list", {}, { timeoutMs: 5000 });
  const kept = requests.request(staying, out.send, "roots/list", {}, { timeoutMs: 5000 });
  ending.end();
  await assert.rejects(lost, (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_SESSION_ENDED");
  assert.equal(requests.size, 1);
  requests.settle({ jsonrpc: "2.0", id: out.sent[1]!.id, result: {} }, staying);
  assert.deepEqual(await kept, {});
});

test("the asking call's cancellation stops the wait, before or during it", async () => {
  const requests = new ClientRequests();
  const session = new Session("s", Date.now());
  const out = capture();
  const gone = new AbortController();
  gone.abort();
  await assert.rejects(
    requests.request(session, out.send, "ping", {}, { timeoutMs: 5000, signal: gone.signal }),
    (e: ClientRequestError) => e.code === "HUBMCP_CLIENT_CANCELLED",
  );
  assert.equal(out.sent.length, 0);
  const ac = new AbortController();
  const pending = requests.request(session, out.send, "ping", {}, { timeoutMs: 5000, signal: ac.signal });
  ac.abort();
  await assert.rejects(pending, (e: ClientRequestError) => e.code === "HUBMCP_CLIENT_CANCELLED");
  assert.equal(requests.size, 0);
  assert.equal(out.sent[1]!.method, "notifications/cancelled");
  // A stream that throws while withdrawing does not change the outcome.
  let calls = 0;
  const throwing = () => {
    if (calls++ > 0) throw new Error("socket gone");
  };
  const again = new AbortController();
  const third = requests.request(session, throwing, "ping", {}, { timeoutMs: 5000, signal: again.signal });
  again.abort();
  await assert.rejects(third, (e: ClientRequestError) => e.code === "HUBMCP_CLIENT_CANCELLED");
});

test("a request no stream could carry fails at once", async () => {
  const requests = new ClientRequests();
  const session = new Session("s", Date.now());
  await assert.rejects(
    requests.request(session, () => false, "ping", {}, { timeoutMs: 5000 }),
    (e: ClientRequestError) => e.code === "HUBMCP_CLIENT_UNDELIVERABLE",
  );
  await assert.rejects(
    requests.request(
      session,
      () => {
        throw new Error("socket gone");
      },
      "ping",
      {},
      { timeoutMs: 5000 },
    ),
    (e: ClientRequestError) => e.code === "HUBMCP_CLIENT_UNDELIVERABLE",
  );
  assert.equal(requests.size, 0);
});
