// The one JSON writer, bound per side: status, body and length; the side's CORS profile and
// fixed headers; a caller's extra headers; and what happens once a head is already out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CORS } from "../../lib/http/cors.ts";
import { jsonWriter, sendError, sendJson, type SendJson } from "../../lib/http/respond.ts";

async function answering(t: { after(fn: () => unknown): void }, answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

test("a side's writer: its CORS profile and fixed headers, the caller's extras, JSON with its length", async (t) => {
  const send = jsonWriter({ cors: CORS.gateway, headers: { "cache-control": "no-store" }, started: "destroy" });
  const url = await answering(t, (res) =>
    send(res, 429, { error: "rate_limited", message: "Too many requests; slow down", note: "é" }, { "retry-after": "3" }),
  );
  const res = await fetch(url);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("retry-after"), "3");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("access-control-expose-headers"), CORS.gateway.actual["access-control-expose-headers"]);
  const text = await res.text();
  assert.equal(Number(res.headers.get("content-length")), Buffer.byteLength(text));
  assert.deepEqual(JSON.parse(text), { error: "rate_limited", message: "Too many requests; slow down", note: "é" });
});

test("the tool server's answers: `{error}` bodies, its own profile, no cache header", async (t) => {
  const url = await answering(t, (res) => sendError(res, 405, "Method not allowed", { allow: "GET" }));
  const res = await fetch(url);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET");
  assert.equal(res.headers.get("cache-control"), null);
  assert.equal(res.headers.get("access-control-expose-headers"), "Mcp-Session-Id, WWW-Authenticate");
  assert.deepEqual(await res.json(), { error: "Method not allowed" });
});

/** The raw bytes a client receives, and whether the connection ended cleanly or was cut. */
function rawAnswer(url: string): Promise<{ body: string; cut: boolean }> {
  return new Promise((resolve) => {
    request(url, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ body, cut: false }));
      res.on("error", () => resolve({ body, cut: true }));
    }).end();
  });
}

for (const [started, cut] of [
  ["end", false],
  ["destroy", true],
] as const) {
  test(`once a head is out, a JSON answer cannot follow: "${started}"`, async (t) => {
    const send: SendJson = started === "end" ? sendJson : jsonWriter({ cors: CORS.gateway, started });
    const url = await answering(t, (res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n", () => send(res, 500, { error: "late" }));
    });
    const answer = await rawAnswer(url);
    assert.equal(answer.body, ": open\n\n", "nothing of the JSON answer is written into the stream");
    assert.equal(answer.cut, cut);
  });
}
