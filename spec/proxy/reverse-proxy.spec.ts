import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { once } from "node:events";
import { createProxyHandler, startReverseProxy, stripPrefix, type RunningProxy } from "../../lib/proxy/reverse-proxy.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function upstream(t: { after(fn: () => unknown): void }, handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function proxy(t: { after(fn: () => unknown): void }, target: string, extra: { pathPrefix?: string; timeoutMs?: number } = {}): Promise<RunningProxy> {
  const running = await startReverseProxy({ target, ...extra });
  t.after(() => running.close());
  return running;
}

/** Raw GET so hop-by-hop request headers reach the proxy as written. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("stripPrefix removes the mount path and keeps the query", () => {
  assert.equal(stripPrefix("/weber/1/c/7/mcp?session_id=a", "/weber/1/c/7"), "/mcp?session_id=a");
  assert.equal(stripPrefix("/weber/1/c/7", "/weber/1/c/7"), "/");
  assert.equal(stripPrefix("/weber/1/c/7?x=1", "/weber/1/c/7"), "/?x=1");
  assert.equal(stripPrefix("/weber/1/c/77/mcp", "/weber/1/c/7"), "/weber/1/c/77/mcp");
  assert.equal(stripPrefix("/other", "/weber/1/c/7"), "/other");
  assert.equal(stripPrefix("/mcp", ""), "/mcp");
});

test("forwards the path without the prefix, end-to-end headers both ways, X-Forwarded-*, and drops hop-by-hop headers", async (t) => {
  let seen: IncomingMessage | undefined;
  const up = await upstream(t, (req, res) => {
    seen = req;
    res.writeHead(200, {
      "content-type": "application/json",
      "mcp-session-id": "sess-1",
      "set-cookie": ["a=1", "b=2"],
      "x-drop": "gone",
      connection: "x-drop",
    });
    res.end(JSON.stringify({ path: req.url }));
  });
  const p = await proxy(t, up.origin, { pathPrefix: "/weber/9/ck/5/" });
  const res = await rawGet(`${p.url}mcp?session_id=q`, {
    "mcp-session-id": "sess-1",
    cookie: "weber-auth-x=9%3Atoken",
    "last-event-id": "4",
    connection: "keep-alive, x-hop",
    "x-hop": "must not pass",
    te: "trailers",
    "proxy-authorization": "Basic abc",
    "x-forwarded-for": "203.0.113.7",
  });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body), { path: "/mcp?session_id=q" });
  assert.equal(res.headers["mcp-session-id"], "sess-1");
  assert.deepEqual(res.headers["set-cookie"], ["a=1", "b=2"]);
  assert.equal(res.headers["x-drop"], undefined);
  const h = seen!.headers;
  assert.equal(h["mcp-session-id"], "sess-1");
  assert.equal(h.cookie, "weber-auth-x=9%3Atoken");
  assert.equal(h["last-event-id"], "4");
  assert.equal(h["x-hop"], undefined);
  assert.equal(h.te, undefined);
  assert.equal(h["proxy-authorization"], undefined);
  assert.equal(h["x-forwarded-for"], "203.0.113.7, 127.0.0.1");
  assert.equal(h["x-forwarded-host"], `127.0.0.1:${p.port}`);
  assert.equal(h["x-forwarded-proto"], "http");
  assert.equal(h.host, up.origin.slice("http://".length));
});

test("mounted behind middleware that set headers first, the handler still passes every Set-Cookie and replaces what the upstream also sends", async (t) => {
  const up = await upstream(t, (_req, res) => {
    res.writeHead(200, { "set-cookie": ["session=abc", "xsrf=def"], "x-frame-options": "DENY", "content-type": "text/plain" });
    res.end("ok");
  });
  const handler = createProxyHandler({ target: up.origin, allowedHosts: ["*"] });
  t.after(() => handler.destroy());
  const front = createServer((req, res) => {
    res.setHeader("x-frame-options", "SAMEORIGIN");
    res.setHeader("x-powered-by", "middleware");
    handler(req, res);
  });
  await new Promise<void>((done) => front.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => front.close(() => done())));
  const res = await rawGet(`http://127.0.0.1:${(front.address() as AddressInfo).port}/`, {});
  assert.equal(res.body, "ok");
  assert.deepEqual(res.headers["set-cookie"], ["session=abc", "xsrf=def"]);
  assert.equal(res.headers["x-frame-options"], "DENY");
  assert.equal(res.headers["x-powered-by"], "middleware");
});

test("keeps X-Forwarded-Host/Proto set by a proxy in front, and passes paths outside the prefix unchanged", async (t) => {
  let seen: IncomingMessage | undefined;
  const up = await upstream(t, (req, res) => {
    seen = req;
    res.end("ok");
  });
  const p = await proxy(t, `${up.origin}/base/`, { pathPrefix: "/weber/9/ck/5" });
  const res = await fetch(`http://127.0.0.1:${p.port}/elsewhere`, {
    headers: { "x-forwarded-host": "proxy.hub.example", "x-forwarded-proto": "https" },
  });
  assert.equal(await res.text(), "ok");
  assert.equal(seen!.url, "/base/elsewhere");
  assert.equal(seen!.headers["x-forwarded-host"], "proxy.hub.example");
  assert.equal(seen!.headers["x-forwarded-proto"], "https");
  assert.equal(seen!.headers["x-forwarded-for"], "127.0.0.1");
});

test("streams a request body to the upstream and the answer back", async (t) => {
  const up = await upstream(t, (req, res) => {
    res.writeHead(201, { "content-type": "text/plain" });
    req.pipe(res);
  });
  const p = await proxy(t, up.origin);
  const body = "x".repeat(200_000);
  const res = await fetch(`${p.url}echo`, { method: "POST", body });
  assert.equal(res.status, 201);
  assert.equal(await res.text(), body);
});

test("an SSE event arrives through the proxy before the upstream writes the next one", async (t) => {
  let writeSecond: (() => void) | undefined;
  const up = await upstream(t, (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("event: open\ndata: {}\n\n");
    writeSecond = () => res.end("event: message\ndata: 2\n\n");
  });
  const p = await proxy(t, up.origin);
  const res = await fetch(`${p.url}sse`);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  assert.equal(decoder.decode(first.value), "event: open\ndata: {}\n\n");
  writeSecond!();
  let rest = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    rest += decoder.decode(chunk.value);
  }
  assert.equal(rest, "event: message\ndata: 2\n\n");
});

test("answers 502 JSON when the upstream is down", async (t) => {
  const closed = await upstream(t, (_req, res) => res.end());
  await new Promise<void>((done) => closed.server.close(() => done()));
  const p = await proxy(t, closed.origin);
  const res = await fetch(`${p.url}mcp`);
  assert.equal(res.status, 502);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("access-control-allow-origin"), "*", "a browser host can read the failure");
  assert.deepEqual(await res.json(), { error: "upstream_unavailable", message: "The upstream server is not reachable" });
});

test("answers 504 after the timeout, but an answer already flowing (SSE or a slow download) outlives it", async (t) => {
  let emit: (() => void) | undefined;
  const up = await upstream(t, (req, res) => {
    if (req.url === "/slow") return; // never answers
    res.writeHead(200, { "content-type": req.url === "/sse" ? "text/event-stream" : "application/octet-stream" });
    res.write(": open\n\n");
    emit = () => res.end("data: late\n\n");
  });
  const p = await proxy(t, up.origin, { timeoutMs: 50 });
  const stream = await fetch(`${p.url}sse`);
  const reader = stream.body!.getReader();
  await reader.read();
  // The slow request starts after the stream opened, so its 504 proves the timeout has passed for the stream too.
  const slow = await fetch(`${p.url}slow`);
  assert.equal(slow.status, 504);
  assert.deepEqual(await slow.json(), { error: "upstream_timeout", message: "The upstream server did not answer in time" });
  emit!();
  const next = await reader.read();
  assert.equal(new TextDecoder().decode(next.value), "data: late\n\n");
  const download = await fetch(`${p.url}file`);
  const body = download.body!.getReader();
  await body.read();
  const anotherSlow = await fetch(`${p.url}slow`);
  assert.equal(anotherSlow.status, 504, "the timeout passed while the download was open");
  emit!();
  assert.equal(new TextDecoder().decode((await body.read()).value), "data: late\n\n");
});

test("closes the upstream request when the client goes away", async (t) => {
  let upstreamClosed: Promise<void> | undefined;
  let opened: () => void;
  const isOpen = new Promise<void>((done) => (opened = done));
  const up = await upstream(t, (req, res) => {
    upstreamClosed = new Promise<void>((done) => res.on("close", () => done()));
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": open\n\n");
    opened();
    void req;
  });
  const p = await proxy(t, up.origin);
  const controller = new AbortController();
  const res = await fetch(`${p.url}sse`, { signal: controller.signal });
  await isOpen;
  await res.body!.getReader().read();
  controller.abort();
  await upstreamClosed;
});

test("close() waits for running exchanges, is safe twice, and the handler reports idle", async (t) => {
  let answer: (() => void) | undefined;
  let arrived: () => void;
  const hasArrived = new Promise<void>((done) => (arrived = done));
  const up = await upstream(t, (_req, res) => {
    answer = () => res.end("done");
    arrived();
  });
  const p = await startReverseProxy({ target: up.origin, closeTimeoutMs: 10_000 });
  const pending = fetch(`${p.url}work`).then((r) => r.text());
  await hasArrived;
  const closing = p.close();
  assert.equal(p.close(), closing);
  answer!();
  assert.equal(await pending, "done");
  await closing;

  const handler = createProxyHandler({ target: up.origin });
  assert.equal(handler.active, 0);
  await handler.idle();
  handler.destroy();
  assert.throws(() => createProxyHandler({ target: "https://example.org" }), /http:\/\//);
});

test("a busy port rejects startReverseProxy", async (t) => {
  const up = await upstream(t, (_req, res) => res.end());
  const port = Number(new URL(up.origin).port);
  await assert.rejects(startReverseProxy({ target: up.origin, host: "127.0.0.1", port }), { code: "EADDRINUSE" });
});

test("DNS rebinding: the proxy rewrites Host for its upstream, so it refuses a rebound Host itself", async (t) => {
  let reached = 0;
  const up = await upstream(t, (_req, res) => {
    reached++;
    res.end("ok");
  });
  const running = await startReverseProxy({ target: up.origin, host: "0.0.0.0", allowedHosts: ["proxy.hub.example"] });
  t.after(() => running.close());
  const at = `http://127.0.0.1:${running.port}/sse`;
  const evil = await rawGet(at, { host: `evil.example:${running.port}` });
  assert.equal(evil.status, 403);
  assert.deepEqual(JSON.parse(evil.body), { error: "host_not_allowed", message: "Host not allowed" });
  assert.equal(reached, 0, "the upstream never saw it");
  assert.equal((await rawGet(at, { host: "proxy.hub.example" })).status, 200);
  assert.equal((await rawGet(at, { host: `127.0.0.1:${running.port}` })).status, 200);
  const open = await startReverseProxy({ target: up.origin, allowedHosts: ["*"] });
  t.after(() => open.close());
  assert.equal((await rawGet(`http://127.0.0.1:${open.port}/`, { host: "evil.example" })).status, 200, '"*" turns the check off');
});

test("slowloris: sockets that never finish their headers are closed within the bound, and the cap keeps room for clients", { timeout: 30_000 }, async (t) => {
  const up = await upstream(t, (_req, res) => res.end("ok"));
  const running = await startReverseProxy({ target: up.origin, limits: { headersTimeoutMs: 300, maxConnections: 10 } });
  t.after(() => running.close());
  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  for (let i = 0; i < 30; i++) {
    const s = connect(running.port, "127.0.0.1");
    s.on("error", () => {});
    s.resume();
    await once(s, "connect");
    s.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    sockets.push(s);
  }
  const closed = Promise.all(sockets.map((s) => (s.closed ? null : once(s, "close"))));
  assert.equal((await rawGet(running.url, { host: "127.0.0.1" })).status, 200);
  await closed;
});

test("an upstream named by an IPv6 literal is reached (the URL's brackets are not part of the host name)", async (t) => {
  const server = createServer((req, res) => res.end(`at ${req.url}`));
  await new Promise<void>((done) => server.listen(0, "::1", done));
  t.after(() => new Promise<void>((done) => server.close(() => done())));
  const p = await proxy(t, `http://[::1]:${(server.address() as AddressInfo).port}`);
  const res = await fetch(`${p.url}here`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "at /here");
});
