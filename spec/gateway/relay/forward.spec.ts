// forward.ts against the review's attacks: a client that reads nothing from a stream a tool
// server floods (the gateway must pause the tool server, not buffer), and client-sent
// identity headers (X-Forwarded-User & co. must never reach a tool server).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import type { ServerResponse } from "node:http";
import { json, post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

const MiB = 1024 * 1024;

test("back-pressure: a client that reads nothing stops the flooding tool server instead of filling the gateway", { timeout: 60_000 }, async (t) => {
  const event = Buffer.from(`event: message\ndata: ${"x".repeat(64 * 1024)}\n\n`);
  let gatewaySide: ServerResponse | undefined;
  let heldByGateway = 0;
  let settle: (outcome: { blocked: boolean; written: number }) => void = () => {};
  const outcome = new Promise<{ blocked: boolean; written: number }>((resolve) => (settle = resolve));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method !== "flood") return reply(res, msg, {});
    res.writeHead(200, { "content-type": "text/event-stream" });
    let written = 0;
    // Writes regardless of back-pressure: what the gateway does not read piles up here, in the tool server.
    const more = (): void => {
      res.write(event);
      written += event.length;
      heldByGateway = Math.max(heldByGateway, gatewaySide?.writableLength ?? 0);
      if (res.writableLength >= 8 * MiB) return settle({ blocked: true, written });
      if (written >= 96 * MiB) return settle({ blocked: false, written });
      setImmediate(more);
    };
    more();
  });
  const h = await startHarness(t, { tools: { flood: { revisions: { default: { url: stub.url } } } } });
  h.gw.httpServer.on("request", (_req, res: ServerResponse) => (gatewaySide = res));

  const socket = connect(h.gw.port, "127.0.0.1");
  t.after(() => socket.destroy());
  socket.pause(); // the attack: never read a byte of the answer
  const body = rpc("flood");
  socket.write(
    `POST /api/mcp/flood/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.tokens.alice}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const { blocked, written } = await outcome;
  assert.ok(blocked, `the tool server saw back-pressure (it wrote ${Math.round(written / MiB)} MiB)`);
  assert.ok(heldByGateway < 1 * MiB, `the gateway held at most ${Math.round(heldByGateway / 1024)} KiB for the client`);
});

test("identity headers: a tool server never sees a client's X-Forwarded-User & co., only what the gateway vouches for", async (t) => {
  const stub = await upstreamStub(t, (msg, req, res) => {
    const seen = Object.fromEntries(Object.entries(req.headers).filter(([name]) => /^(x-|forwarded)/.test(name)));
    if (req.url?.startsWith("/tools/")) {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ seen }));
    }
    reply(res, msg, seen);
  });
  const h = await startHarness(t, { publicUrl: "https://hub.example.org", tools: { shared: { revisions: { default: { url: stub.url } } } } });
  const forged = {
    "x-forwarded-user": "admin",
    "x-remote-user": "admin",
    "x-real-ip": "10.9.9.9",
    forwarded: "for=10.9.9.9;host=evil.example;proto=https",
    "x-forwarded-for": "10.9.9.9",
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "gopher",
    "x-forwarded-port": "1",
    "x-forwarded-prefix": "/evil",
    "x-forwarded-groups": "admins",
    "x-auth-request-user": "admin",
    "x-custom": "kept",
    host: "127.0.0.1",
  };
  const vouched = { "x-forwarded-user": "alice", "x-forwarded-proto": "https", "x-custom": "kept" };
  const rpcSeen = (await json(await post(`${h.base}/api/mcp/shared/mcp`, h.tokens.alice, rpc("seen"), forged))).result;
  assert.match(rpcSeen["x-forwarded-for"], /^(::ffff:)?127\.0\.0\.1$/, "the client's address as the gateway's socket saw it");
  delete rpcSeen["x-forwarded-for"];
  assert.deepEqual(rpcSeen, vouched);
  const restSeen = (await json(await post(`${h.base}/api/mcp/shared/tools/echo`, h.tokens.bob, "{}", forged))).seen;
  delete restSeen["x-forwarded-for"];
  assert.deepEqual(restSeen, { ...vouched, "x-forwarded-user": "bob" }, "the REST route too");
});

test("each running gateway owns its upstream connections: two in one process share none, and close leaves none open", { timeout: 20_000 }, async (t) => {
  const sockets = new Map<number, Socket>();
  const stub = await upstreamStub(t, (msg, req, res) => {
    sockets.set(req.socket.remotePort!, req.socket);
    reply(res, msg, { port: req.socket.remotePort });
  });
  const config = { tools: { shared: { revisions: { default: { url: stub.url } } } } };
  const a = await startHarness(t, config);
  const b = await startHarness(t, config);
  const portVia = async (h: typeof a): Promise<number> => (await json(await post(`${h.base}/api/mcp/shared/mcp`, h.tokens.alice, rpc("which")))).result.port;
  const fromA = await portVia(a);
  const fromB = await portVia(b);
  assert.notEqual(fromA, fromB, "the second gateway opened its own connection");
  assert.equal(await portVia(b), fromB, "and keeps it alive between requests");
  const closedA = new Promise<void>((done) => sockets.get(fromA)!.once("close", () => done()));
  await a.gw.close();
  await closedA; // hangs (and the spec times out) while a closed gateway's pooled socket stays open
  assert.equal(sockets.get(fromB)!.destroyed, false, "closing one gateway leaves the other's connections alone");
  assert.equal(await portVia(b), fromB);
});
