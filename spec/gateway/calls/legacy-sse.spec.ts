// The gateway's 2024-11-05 HTTP+SSE transport against a tool server that misbehaves: a tiny
// in-spec streamable-HTTP server (a `url` revision) answers POSTs with HTTP errors, JSON-RPC
// errors, batches, oversized or cut-off answers, and pushes a notification on its own
// stream, and ends it. Every POST is 202 and every request gets one answer on the held stream.
// The client's initialize opens the upstream session; a client that sends a call first gets one the gateway opens.
// The real start_mcp behind this transport, with the SDK's SSEClientTransport: section-c.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { SseReader } from "../../../lib/http/sse-reader.ts";
import type { SpanRecord } from "../../../lib/telemetry/span.ts";
import { SPAN_CHANNEL } from "../../../lib/telemetry/tracer.ts";
import { json, post, rpc, startHarness } from "../helpers.ts";

async function upstream(t: test.TestContext): Promise<{ url: string; deleted: Promise<string>; hung: Array<() => void>; inits: string[] }> {
  /** Who opened each session: the clientInfo name of each initialize. */
  const inits: string[] = [];
  let onDelete: (session: string) => void = () => {};
  let endStandalone: () => void = () => {};
  const hung: Array<() => void> = [];
  const deleted = new Promise<string>((done) => (onDelete = done));
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const session = req.headers["mcp-session-id"];
      if (req.method === "DELETE") return void (onDelete(String(session)), res.writeHead(200).end());
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`id: 2\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`);
        return void (endStandalone = () => res.end());
      }
      const msg = JSON.parse(body);
      const send = (status: number, text: string, type = "application/json"): void => void res.writeHead(status, { "content-type": type }).end(text);
      if (Array.isArray(msg)) return send(200, JSON.stringify(msg.map((m: { id: number }) => ({ jsonrpc: "2.0", id: m.id, result: { batch: m.id } }))));
      switch (msg.method) {
        case "initialize":
          inits.push(msg.params.clientInfo.name);
          res.setHeader("mcp-session-id", "up-1");
          return send(
            200,
            JSON.stringify({
              jsonrpc: "2.0",
              id: msg.id,
              result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "odd", version: "1" } },
            }),
          );
        case "notifications/initialized":
          return send(202, "");
        case "notifications/end-stream":
          endStandalone();
          return send(202, "");
        case "boom":
          return send(500, "internal trouble", "text/plain");
        case "refused":
          return send(400, JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "bad params" } }));
        case "gone":
          return send(404, JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
        case "huge":
          return send(200, JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { text: "x".repeat(20_000) } }));
        case "cut":
          return void res.destroy();
        case "traced":
          return send(200, JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { meta: msg.params?._meta, header: req.headers.traceparent } }));
        case "hang":
          hung.push(() => send(200, JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { user: req.headers["x-forwarded-user"] } })));
          return;
        case "streamed":
          res.writeHead(200, { "content-type": "text/event-stream" });
          return void res.end(`: note\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { session } })}\n\n`);
        default:
          return send(200, JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { method: msg.method } }));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, deleted, hung, inits };
}

/** Opens the held legacy stream as `token`; `next()` answers its events one at a time. */
async function holdStream(
  t: test.TestContext,
  url: string,
  token: string,
): Promise<{ body: ReadableStreamDefaultReader<Uint8Array>; next(): Promise<{ event: string; data: string }> }> {
  const ac = new AbortController();
  t.after(() => ac.abort());
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: ac.signal });
  const body = res.body!.getReader();
  const reader = new SseReader();
  const queue: Array<{ event: string; data: string }> = [];
  const next = async (): Promise<{ event: string; data: string }> => {
    while (queue.length === 0) queue.push(...reader.push((await body.read()).value!));
    return queue.shift()!;
  };
  return { body, next };
}

test("legacy SSE through the gateway: one answer per request on the stream, whatever the tool server does", { timeout: 30_000 }, async (t) => {
  const up = await upstream(t);
  const h = await startHarness(t, { tools: { odd: { revisions: { default: { url: up.url } } } }, limits: { maxBodyBytes: 4096 } });
  const base = `${h.base}/api/mcp/odd`;
  const bearer = { authorization: `Bearer ${h.tokens.alice}` };
  const { body, next } = await holdStream(t, `${base}/sse`, h.tokens.alice);
  const endpoint = await next();
  assert.equal(endpoint.event, "endpoint");
  const url = `${h.base}${endpoint.data}`;
  const messages = new Map<unknown, unknown>();
  const answerTo = async (id: unknown): Promise<any> => {
    while (!messages.has(id)) {
      const e = await next();
      const m = JSON.parse(e.data);
      messages.set(m.id ?? m.method, m);
    }
    return messages.get(id);
  };
  const send = async (text: string): Promise<void> => {
    const r = await post(url, h.tokens.alice, text);
    assert.equal(r.status, 202);
    await r.text();
  };

  // The client's own initialize opens the upstream session; then the tool session's own stream reaches the client too.
  await send(rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }, 0));
  assert.equal((await answerTo(0)).result.serverInfo.name, "odd");
  assert.deepEqual(up.inits, ["spec"], "the tool server's session is the client's own, with its capabilities");
  assert.equal((await answerTo("notifications/tools/list_changed")).method, "notifications/tools/list_changed");
  await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await send(rpc("boom", {}, 1));
  assert.deepEqual((await answerTo(1)).error, { code: -32603, message: "The tool server answered HTTP 500" });
  await send(rpc("refused", {}, 2));
  assert.deepEqual((await answerTo(2)).error, { code: -32602, message: "bad params" });
  await send(rpc("gone", {}, 9));
  assert.deepEqual((await answerTo(9)).error, { code: -32603, message: "The tool server answered HTTP 404" });
  await send(rpc("huge", {}, 3));
  assert.match((await answerTo(3)).error.message, /too large/);
  await send(rpc("cut", {}, 4));
  assert.match((await answerTo(4)).error.message, /not reachable|broke off/);
  await send(rpc("streamed", {}, 5));
  assert.deepEqual((await answerTo(5)).result, { session: "up-1" });
  await send(
    JSON.stringify([
      { jsonrpc: "2.0", id: 6, method: "a" },
      { jsonrpc: "2.0", id: 7, method: "b" },
    ]),
  );
  assert.deepEqual([(await answerTo(6)).result, (await answerTo(7)).result], [{ batch: 6 }, { batch: 7 }]);
  await send(rpc("ping", {}, 8));
  assert.deepEqual((await answerTo(8)).result, {});

  // A session id with no stream held here, no session id, another method: clear 4xx.
  const other = await json(await fetch(base, { headers: bearer }));
  const unheld = await post(`${base}/sse?session_id=${other.session}`, h.tokens.alice, rpc("ping"));
  assert.equal(unheld.status, 404);
  assert.equal((await json(unheld)).error, "unknown_session");
  const bare = await post(`${base}/sse`, h.tokens.alice, rpc("ping"));
  assert.equal(bare.status, 400);
  await bare.text();
  const put = await fetch(`${base}/sse`, { method: "PUT", headers: bearer });
  assert.equal(put.status, 405);
  await put.text();

  // The tool server ends its session's stream: the client's ends too (so it reconnects),
  // and the tool server's session is ended with it.
  await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/end-stream" }));
  while (!(await body.read()).done);
  assert.equal(await up.deleted, "up-1");
  const after = await post(url, h.tokens.alice, rpc("ping"));
  assert.equal(after.status, 404);
  await after.text();
});

test("legacy SSE POSTs hold a per-person slot until their answer, and the tool server hears the vouched user", { timeout: 30_000 }, async (t) => {
  const up = await upstream(t);
  const h = await startHarness(t, { tools: { odd: { revisions: { default: { url: up.url } } } }, limits: { upstreamRequestsPerUser: 1 } });
  const { next } = await holdStream(t, `${h.base}/api/mcp/odd/sse`, h.tokens.alice);
  const url = `${h.base}${(await next()).data}`;
  const first = await post(url, h.tokens.alice, rpc("hang", {}, 1), { "x-forwarded-user": "admin" });
  assert.equal(first.status, 202);
  await first.text();
  while (up.hung.length === 0) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(up.inits, ["hubmcp-gateway"], "a client that calls first gets a session the gateway opened");
  const second = await post(url, h.tokens.alice, rpc("ping", {}, 2));
  assert.equal(second.status, 429, "the hanging call still holds alice's only slot");
  assert.equal((await json(second)).error, "too_many_running");
  up.hung.shift()!();
  let answer: { id?: unknown; result?: { user?: string } } = {};
  while (answer.id !== 1) answer = JSON.parse((await next()).data);
  assert.equal(answer.result?.user, "alice", "the tool server hears who the gateway vouches for, not the client's claim");
  let third: Response;
  do third = await post(url, h.tokens.alice, rpc("ping", {}, 3));
  while (third.status === 429 && (await third.text(), true));
  assert.equal(third.status, 202, "the slot came back with the answer");
  await third.text();
});

test("a legacy SSE POST is traced as on the other routes: the gateway's span between the client's and the tool server's", { timeout: 30_000 }, async (t) => {
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => void seen.push(span as SpanRecord);
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  const up = await upstream(t);
  const h = await startHarness(t, { tools: { odd: { revisions: { default: { url: up.url } } } } });
  const { next } = await holdStream(t, `${h.base}/api/mcp/odd/sse`, h.tokens.alice);
  const url = `${h.base}${(await next()).data}`;
  const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const r = await post(url, h.tokens.alice, rpc("traced", { _meta: { traceparent: parent, tracestate: "v=1" } }, 7));
  assert.equal(r.status, 202);
  await r.text();
  let answer: any;
  while (answer?.id !== 7) answer = JSON.parse((await next()).data);
  const { meta, header } = answer.result;
  assert.equal(meta.traceparent, header, "the same context in _meta and the header");
  const [, traceId, spanId] = meta.traceparent.split("-");
  assert.equal(traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.equal(meta.tracestate, "v=1");
  const gateway = seen.find((s) => s.spanId === spanId);
  assert.ok(gateway, "the tool server's parent is the gateway's span");
  assert.equal(gateway.parentSpanId, "00f067aa0ba902b7");
  assert.equal(gateway.name, "traced");
});
