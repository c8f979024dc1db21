// Slowloris bounds on the tool server (and the helper the gateway shares): sockets that never
// finish their headers are closed within headersTimeoutMs, at the connection cap an idle socket
// makes room for a new client, and when every connection is busy a new one is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { once } from "node:events";
import { capConnections, serverOptions } from "../../lib/http/connection-guard.ts";
import { McpServer } from "../../lib/index.ts";

async function idleSocket(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.resume();
  await once(socket, "connect");
  socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  return socket;
}

/** Listens on a loopback port for the test, closed (connections and all) after it. */
async function listenLocal(server: Server, t: { after(fn: () => unknown): void }): Promise<number> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  return (server.address() as AddressInfo).port;
}

const closedAll = (sockets: Socket[]): Promise<unknown> => Promise.all(sockets.map((s) => (s.closed ? null : once(s, "close"))));

test("serverOptions: the deadlines are checked often enough to hold, and a request bound never undercuts the headers bound", () => {
  assert.deepEqual(serverOptions({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 1 }), {
    headersTimeout: 20_000,
    requestTimeout: 60_000,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 1000,
  });
  const tight = serverOptions({ headersTimeoutMs: 20, requestTimeoutMs: 0, keepAliveTimeoutMs: 1, maxConnections: 1 });
  assert.equal(tight.requestTimeout, 20, "0 would turn Node's headers timeout off");
  assert.equal(tight.connectionsCheckingInterval, 10);
});

test("tool server: idle sockets are closed within headersTimeoutMs and cannot keep clients out", { timeout: 30_000 }, async (t) => {
  const server = new McpServer("slow", { headersTimeoutMs: 300, maxConnections: 20 });
  const running = await server.listen({ host: "127.0.0.1", port: 0 });
  t.after(() => running.close());
  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  for (let i = 0; i < 100; i++) sockets.push(await idleSocket(running.port));
  const closed = closedAll(sockets);
  const res = await fetch(`${running.url}mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  assert.equal(res.status, 200, "a client gets in with the cap full of idle sockets");
  await res.text();
  await closed;
});

test("capConnections: busy connections are never cut to make room; a new one is refused instead", async (t) => {
  const waiting: ServerResponse[] = [];
  let arrived: () => void = () => {};
  const server = createServer(
    serverOptions({ headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 2 }),
    (_req, res) => {
      waiting.push(res);
      arrived();
    },
  );
  capConnections(server, 2);
  const port = await listenLocal(server, t);
  const busy: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const got = new Promise<void>((resolve) => (arrived = resolve));
    const s = connect(port, "127.0.0.1");
    s.on("error", () => {});
    busy.push(s);
    s.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await got;
  }
  t.after(() => busy.forEach((s) => s.destroy()));
  const late = connect(port, "127.0.0.1");
  late.on("error", () => {});
  late.resume();
  await once(late, "close");
  assert.ok(!busy.some((s) => s.closed), "the running requests kept their connections");
  waiting.forEach((res) => res.end("done"));
});

/** One GET on a new connection, kept open: resolves with what came back once "ok" arrives or the server closes it. */
function getKeptOpen(port: number): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  let seen = "";
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1");
      if (seen.endsWith("ok")) resolve(seen);
    });
    socket.on("close", () => resolve(seen));
  });
  return { socket, answer };
}

test("capConnections: at the cap, an idle keep-alive connection makes room for a new one (node:http still marks which sockets are answering)", {
  timeout: 10_000,
}, async (t) => {
  const server = createServer(
    serverOptions({ headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000, maxConnections: 1 }),
    (_req, res) => res.end("ok"),
  );
  capConnections(server, 1);
  const port = await listenLocal(server, t);
  // Answered, and the connection kept open for the next request: idle.
  const first = getKeptOpen(port);
  t.after(() => first.socket.destroy());
  assert.match(await first.answer, /ok$/);
  const second = getKeptOpen(port);
  t.after(() => second.socket.destroy());
  assert.match(await second.answer, /ok$/, "the new connection was served");
  assert.ok(first.socket.closed || (await once(first.socket, "close")), "the idle one made room");
});
