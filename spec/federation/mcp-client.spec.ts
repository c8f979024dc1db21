// The one streamable-HTTP MCP client (lib/federation/mcp-client.ts) against a real loopback
// endpoint whose answers each test scripts: JSON and SSE answers, batches, a reply resumed
// with Last-Event-ID, error statuses classified, broken and oversized answers, DELETE, and
// cancellation. The gateway and hub_bridge specs pin what each makes of it.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Agent, createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { AddressInfo } from "node:net";
import { McpClientError } from "../../lib/federation/client-failure.ts";
import { end, endpointHttp, initialize, type McpHttp, postMessage, readMessages, request } from "../../lib/federation/mcp-client.ts";
import type { Cancel } from "../../lib/proxy/forwarder.ts";
import { JsonRpcError } from "../../lib/util/jsonrpc.ts";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

interface Endpoint {
  http: McpHttp;
  seen: Array<{ method: string; headers: IncomingMessage["headers"]; body: string }>;
  url: string;
}

async function endpoint(t: TestContext, handle: Handler): Promise<Endpoint> {
  const seen: Endpoint["seen"] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, headers: req.headers, body });
      handle(req, body, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const agents = { http: new Agent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  t.after(() => {
    agents.http.destroy();
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { http: endpointHttp(url, agents, { authorization: "Bearer t" }), seen, url };
}

const json = (res: ServerResponse, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
};

const idOf = (body: string): unknown => (JSON.parse(body) as { id?: unknown }).id;

async function failureOf(work: Promise<unknown>): Promise<McpClientError["failure"]> {
  const err = await work.then(
    () => assert.fail("expected a failure"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof McpClientError, String(err));
  return err.failure;
}

test("initialize opens a session, names the protocol version after it, and DELETE ends it", async (t) => {
  const ep = await endpoint(t, (req, body, res) => {
    if (req.method === "DELETE") return void res.writeHead(204).end();
    const id = idOf(body);
    if (id === undefined) return void res.writeHead(202).end();
    json(res, { jsonrpc: "2.0", id, result: { protocolVersion: "2025-06-18", capabilities: {} } }, { "mcp-session-id": "s-1" });
  });
  const opened = await initialize(ep.http, { protocolVersion: "2025-11-25" });
  assert.equal(opened.session, "s-1");
  assert.equal(opened.protocolVersion, "2025-06-18");
  assert.equal(idOf(ep.seen[0]!.body), 0);
  assert.equal(ep.seen[0]!.headers.authorization, "Bearer t");
  assert.equal(ep.seen[0]!.headers.accept, "application/json, text/event-stream");
  assert.deepEqual(JSON.parse(ep.seen[1]!.body), { jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(ep.seen[1]!.headers["mcp-session-id"], "s-1");
  assert.equal(ep.seen[1]!.headers["mcp-protocol-version"], "2025-06-18");
  await end(ep.http, opened.session);
  assert.equal(ep.seen[2]!.method, "DELETE");
  assert.equal(ep.seen[2]!.headers["mcp-session-id"], "s-1");
  await end(ep.http, undefined);
  assert.equal(ep.seen.length, 3, "no session: nothing to end");
});

test("an SSE answer: other messages handed on, a non-JSON event dropped, a broken-off reply resumed with Last-Event-ID", async (t) => {
  const ep = await endpoint(t, (req, _body, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (req.method === "POST") {
      const note = { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } };
      // The server closes the reply before its response, as servers may for long calls.
      return void res.end(`id: e1\ndata: ${JSON.stringify(note)}\n\nid: e2\ndata: {not json\n\n`);
    }
    assert.equal(req.headers["last-event-id"], "e2");
    res.end(`id: e3\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "hub-tools/call", result: { content: [] } })}\n\n`);
  });
  const others: unknown[] = [];
  const answered = await request(ep.http, "s-1", "tools/call", { name: "x" });
  assert.deepEqual(answered, { result: { content: [] }, session: "s-1" });
  assert.deepEqual(
    ep.seen.map((s) => s.method),
    ["POST", "GET"],
  );
  const answer = await postMessage(ep.http, "s-1", { jsonrpc: "2.0", id: 9, method: "x" }, {}, AbortSignal.timeout(5000));
  await readMessages(answer, (m) => void others.push(m));
  assert.deepEqual(others, [{ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }]);
});

test("a batch answer hands each message; a JSON-RPC error rejects with it; no response at all is broken", async (t) => {
  const ep = await endpoint(t, (_req, body, res) => {
    const { id, method } = JSON.parse(body) as { id: unknown; method: string };
    if (method === "batch")
      return json(res, [
        { jsonrpc: "2.0", method: "n" },
        { jsonrpc: "2.0", id, result: { ok: true } },
      ]);
    if (method === "fail") return json(res, { jsonrpc: "2.0", id, error: { code: -32602, message: "bad", data: { why: 1 } } });
    res.writeHead(202).end();
  });
  assert.deepEqual((await request(ep.http, undefined, "batch", {})).result, { ok: true });
  const err = await request(ep.http, undefined, "fail", {}).catch((e: unknown) => e);
  assert.ok(err instanceof JsonRpcError);
  assert.equal(err.code, -32602);
  assert.deepEqual(err.data, { why: 1 });
  assert.deepEqual(await failureOf(request(ep.http, undefined, "none", {})), { kind: "broken", detail: "the answer carried no response" });
});

test("error statuses are classified once, with a short detail from the body", async (t) => {
  const ep = await endpoint(t, (req, _body, res) => {
    const status = Number(req.headers["x-status"]);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status === 403 ? { error: "forbidden", required_groups: ["lab"] } : { error: `no ${status}` }));
  });
  const ask = (status: number, session?: string) => request(ep.http, session, "tools/list", {}, { headers: { "x-status": String(status) } });
  assert.deepEqual(await failureOf(ask(401)), { kind: "unauthorized" });
  assert.deepEqual(await failureOf(ask(403)), { kind: "forbidden", groups: ["lab"] });
  assert.deepEqual(await failureOf(ask(404, "s-1")), { kind: "session-gone" });
  assert.deepEqual(await failureOf(ask(404)), { kind: "not-found", detail: "no 404" });
  assert.deepEqual(await failureOf(ask(503)), { kind: "unavailable", detail: "HTTP 503: no 503" });
  assert.deepEqual(await failureOf(ask(400)), { kind: "http", status: 400, detail: "no 400" });
});

test("broken answers: not JSON, too large, an event too large, a connection gone before any answer", async (t) => {
  const ep = await endpoint(t, (_req, body, res) => {
    const { method } = JSON.parse(body) as { method: string };
    if (method === "text") return void res.writeHead(200, { "content-type": "application/json" }).end("<html>");
    if (method === "big") return void res.writeHead(200, { "content-type": "application/json" }).end(" ".repeat(2048));
    if (method === "big-event") return void res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${"x".repeat(2048)}\n\n`);
    res.destroy();
  });
  assert.deepEqual(await failureOf(request(ep.http, undefined, "text", {})), { kind: "broken", detail: "the answer was not JSON" });
  assert.deepEqual(await failureOf(request(ep.http, undefined, "big", {}, { maxBytes: 1024 })), { kind: "broken", detail: "answer too large", tooLarge: true });
  assert.deepEqual(await failureOf(request(ep.http, undefined, "big-event", {}, { maxBytes: 1024 })), {
    kind: "broken",
    detail: "an event was too large",
    tooLarge: true,
  });
  const gone = await failureOf(request(ep.http, undefined, "hang-up", {}));
  assert.equal(gone.kind, "unavailable");
  // Ending a session on a server that is gone is no error: there is nothing left to end.
  await end(endpointHttp("http://127.0.0.1:1/mcp", { http: new Agent(), https: new HttpsAgent() }, {}), "s-1");
});

test("an aborted request rejects with its reason; a Cancel callback destroys the exchange", async (t) => {
  let arrived: () => void = () => {};
  const ep = await endpoint(t, (_req, _body, res) => {
    // A stream that never answers: only the client can end it.
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": open\n\n");
    arrived();
  });
  const controller = new AbortController();
  const started = new Promise<void>((done) => (arrived = done));
  const asked = request(ep.http, undefined, "slow", {}, { signal: controller.signal });
  await started;
  controller.abort(new Error("stop"));
  await assert.rejects(asked, /stop/);
  const cancel: Cancel = {};
  const answer = await postMessage(ep.http, undefined, { jsonrpc: "2.0", id: 1, method: "slow" }, {}, cancel);
  const read = readMessages(answer, () => {});
  cancel.onCancel!();
  assert.equal((await failureOf(read)).kind, "broken");
});

test("a resumption the server refuses fails with its status; one that brings nothing new stops", async (t) => {
  const ep = await endpoint(t, (req, _body, res) => {
    if (req.method === "POST") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end("id: e1\ndata: {}\n\n");
    }
    if (req.headers["mcp-session-id"] === "gone") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/event-stream" }).end(": nothing new\n\n");
  });
  assert.deepEqual(await failureOf(request(ep.http, "gone", "tools/call", {})), { kind: "session-gone" });
  assert.deepEqual(await failureOf(request(ep.http, "s-1", "tools/call", {})), { kind: "broken", detail: "the answer carried no response" });
  assert.equal(ep.seen.filter((s) => s.method === "GET" && s.headers["mcp-session-id"] === "s-1").length, 1, "no second try for a stream that brought nothing");
});
