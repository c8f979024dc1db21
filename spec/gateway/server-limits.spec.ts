// The gateway against the review's network attacks: sockets that never finish their headers
// (slowloris) and a DNS-rebound Host on a wildcard bind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import { once } from "node:events";
import { fake, post, rpc, startHarness } from "./helpers.ts";

/** A socket that starts a request and never finishes its headers. */
async function idleSocket(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.resume(); // reads, so the gateway's 408 and close are seen
  await once(socket, "connect");
  socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  return socket;
}

test("slowloris: idle sockets cannot starve /healthz, are closed within the headers bound, and held streams live on", { timeout: 30_000 }, async (t) => {
  const h = await startHarness(
    t,
    { tools: { fake: { revisions: { default: fake() } } }, limits: { headersSeconds: 0.5, maxConnections: 50 } },
    { keepaliveMs: 50 },
  );
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const init = await post(
    mcp,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  await init.text();
  const ac = new AbortController();
  t.after(() => ac.abort());
  const stream = await fetch(mcp, {
    headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", "mcp-session-id": init.headers.get("mcp-session-id")! },
    signal: ac.signal,
  });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  await reader.read();

  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  for (let i = 0; i < 200; i++) sockets.push(await idleSocket(h.gw.port));
  const closed = Promise.all(sockets.map((s) => (s.closed ? Promise.resolve() : once(s, "close"))));
  const open = await new Promise<number>((resolve, reject) => h.gw.httpServer.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  assert.ok(open <= 50, `at most maxConnections open (${open})`);

  const health = await fetch(`${h.base}/healthz`);
  assert.equal(health.status, 200, "/healthz answers with the cap full of idle sockets");
  await health.text();
  // Never finishing their headers, every idle socket is closed by the gateway (no sleep: the close events).
  await closed;

  // The event stream opened before the flood was neither evicted nor timed out.
  let text = "";
  while (!text.includes(": keepalive\n\n")) text += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
});

test("DNS rebinding: a gateway on 0.0.0.0 refuses an unknown Host, serves its own names and the configured ones", async (t) => {
  const h = await startHarness(
    t,
    { publicUrl: "https://hub.example.org", allowedHosts: ["gw.internal:8080"], tools: { fake: { revisions: { default: fake() } } } },
    { host: "0.0.0.0" },
  );
  const at = (host: string, path = "/healthz", init: RequestInit = {}): Promise<number> =>
    new Promise((resolve, reject) => {
      const socket = connect(h.gw.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (d) => (answer += d));
      socket.on("end", () => resolve(Number(answer.slice(9, 12))));
      socket.on("error", reject);
      const body = typeof init.body === "string" ? init.body : "";
      const auth = init.headers
        ? `Authorization: ${(init.headers as Record<string, string>).authorization}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`
        : "";
      socket.write(
        `${init.method ?? "GET"} ${path} HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
  const call = { method: "POST", body: rpc("ping"), headers: { authorization: `Bearer ${h.tokens.alice}` } };
  assert.equal(await at("evil.example"), 403);
  assert.equal(await at(`evil.example:${h.gw.port}`, "/api/mcp/fake/mcp", call), 403, "a rebound page cannot call tools with a token it got");
  assert.equal(await at("gw.internal:9999"), 403, "a configured name:port allows that port only");
  const own = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => (a.family === "IPv6" ? `[${a.address}]` : a.address)));
  for (const host of [...own.map((a) => `${a}:${h.gw.port}`), hostname(), "hub.example.org", "HUB.example.org:443", "gw.internal:8080", "localhost"]) {
    assert.equal(await at(host), 200, host);
  }
  assert.equal(await at(`127.0.0.1:${h.gw.port}`, "/api/mcp/fake/mcp", call), 200);
  const served = await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(served.status, 200);
  await served.text();
});
