import { test } from "node:test";
import { redactCookie } from "../../lib/launcher/hub.ts";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { attachRequestLog } from "../../lib/launcher/request-log.ts";
import { McpServer } from "../../lib/index.ts";

test("one line per request with method, path, status, time and session; never query, cookie or authorization", async (t) => {
  const server = new McpServer("log-spec");
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const lines: string[] = [];
  let logged: (() => void) | undefined;
  let clock = 0;
  attachRequestLog(
    running.httpServer,
    (line) => {
      lines.push(line);
      logged?.();
    },
    () => (clock += 5),
  );
  const nextLine = (): Promise<void> => new Promise((done) => (logged = done));

  let wait = nextLine();
  const init = await fetch(`${running.url}mcp?token=secret-query`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: "auth=secret-cookie", authorization: "Bearer secret-token" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  assert.ok(session);
  await init.text();
  await wait;
  assert.equal(lines[0], `POST /mcp 200 5.0ms session=${session}`);

  wait = nextLine();
  await (await fetch(`${running.url}`, { headers: { "mcp-session-id": session } })).text();
  await wait;
  assert.equal(lines[1], `GET / 200 5.0ms session=${session}`);

  wait = nextLine();
  await (await fetch(`${running.url}nowhere?session_id=abc`)).text();
  await wait;
  assert.equal(lines[2], "GET /nowhere 404 5.0ms session=abc");

  for (const line of lines) assert.doesNotMatch(line, /secret/);
});

test("headers set with setHeader and raw header arrays are read; a client leaving early is marked; detach stops logging", async (t) => {
  const http = createServer((req, res) => {
    if (req.url === "/set") {
      res.setHeader("Mcp-Session-Id", "s-set");
      res.end("ok");
    } else if (req.url === "/raw") {
      res.writeHead(200, ["Mcp-Session-Id", "s-raw", "Content-Type", "text/plain"]);
      res.end("ok");
    } else {
      res.writeHead(200, "OK", { "content-type": "text/event-stream" });
      res.write(": open\n\n");
    }
  });
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  t.after(() => {
    http.closeAllConnections();
    return new Promise<void>((done) => http.close(() => done()));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const lines: string[] = [];
  let logged: (() => void) | undefined;
  const detach = attachRequestLog(http, (line) => {
    lines.push(line);
    logged?.();
  });
  let wait = new Promise<void>((done) => (logged = done));
  await (await fetch(`${base}/set`)).text();
  await wait;
  wait = new Promise<void>((done) => (logged = done));
  await (await fetch(`${base}/raw`)).text();
  await wait;
  wait = new Promise<void>((done) => (logged = done));
  const controller = new AbortController();
  const stream = await fetch(`${base}/stream`, { signal: controller.signal });
  await stream.body!.getReader().read();
  controller.abort();
  await wait;
  assert.match(lines[0]!, /^GET \/set 200 [\d.]+ms session=s-set$/);
  assert.match(lines[1]!, /^GET \/raw 200 [\d.]+ms session=s-raw$/);
  assert.match(lines[2]!, /^GET \/stream 200 [\d.]+ms session=- \(closed early\)$/);
  detach();
  await (await fetch(`${base}/set`)).text();
  assert.equal(lines.length, 3);
});

test("the cookie segment of a weber path is hidden", () => {
  assert.equal(redactCookie("/weber/123/s3cr3t/7/mcp"), "/weber/123/…/7/mcp");
  assert.equal(redactCookie("/weber/123/s3cr3t"), "/weber/123/…");
  assert.equal(redactCookie("/mcp"), "/mcp");
});
