// Reading a JSON request body: one chunk or many, the size limit before and during the
// upload, bodies that are not JSON, and a client that hangs up halfway.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { readJsonBody, type BodyResult } from "../../lib/http/body.ts";

const LIMIT = 100_000;

/** A server that reads each body and hands the result to the test; the response says what it was. */
async function bodyServer(t: { after(fn: () => unknown): void }): Promise<{ port: number; next(): Promise<BodyResult> }> {
  const results: ((r: BodyResult) => void)[] = [];
  const seen: BodyResult[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    void readJsonBody(req, LIMIT).then((result) => {
      const waiting = results.shift();
      if (waiting) waiting(result);
      else seen.push(result);
      if (!res.destroyed) res.end(result.ok ? "ok" : result.reason);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return {
    port: (server.address() as AddressInfo).port,
    next: () => (seen.length > 0 ? Promise.resolve(seen.shift()!) : new Promise((resolve) => results.push(resolve))),
  };
}

function send(port: number, chunks: (string | Buffer)[], headers: Record<string, string | number> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: "127.0.0.1", method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve(text));
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

test("a body in one chunk or in many parses the same; empty, BOM-prefixed and invalid bodies", async (t) => {
  const server = await bodyServer(t);
  const big = { items: Array.from({ length: 4000 }, (_, i) => `entry-${i}-${"é".repeat(4)}`) };
  const text = JSON.stringify(big);
  assert.ok(Buffer.byteLength(text) > 64 * 1024, "larger than one socket read: it arrives in several chunks");
  assert.equal(await send(server.port, [text]), "ok");
  assert.deepEqual(await server.next(), { ok: true, value: big, empty: false });
  // Written in two pieces split inside a multi-byte character: however they arrive, the
  // bytes are joined before they are decoded.
  const bytes = Buffer.from('{"name":"é"}');
  assert.equal(await send(server.port, [bytes.subarray(0, 10), bytes.subarray(10)]), "ok");
  assert.deepEqual(await server.next(), { ok: true, value: { name: "é" }, empty: false });

  assert.equal(await send(server.port, []), "ok");
  assert.deepEqual(await server.next(), { ok: true, value: undefined, empty: true });
  assert.equal(await send(server.port, ["\ufeff[1,2]"]), "ok");
  assert.deepEqual(await server.next(), { ok: true, value: [1, 2], empty: false });
  assert.equal(await send(server.port, ["{nope"]), "not-json");
  assert.deepEqual(await server.next(), { ok: false, reason: "not-json" });
  assert.equal(await send(server.port, [Buffer.from([0x22, 0xff, 0x22])]), "not-json", "invalid UTF-8 is not JSON");
  assert.deepEqual(await server.next(), { ok: false, reason: "not-json" });
});

test("the limit: a declared length over it, or an upload that grows past it, is refused", async (t) => {
  const server = await bodyServer(t);
  const over = "x".repeat(LIMIT + 1);
  assert.equal(await send(server.port, [over], { "content-length": LIMIT + 1 }), "too-large");
  assert.deepEqual(await server.next(), { ok: false, reason: "too-large" });
  // Chunked, so no length is declared: the reader counts as the bytes come.
  const chunk = "y".repeat(40_000);
  assert.equal(await send(server.port, [chunk, chunk, chunk, chunk]), "too-large");
  assert.deepEqual(await server.next(), { ok: false, reason: "too-large" });
  assert.equal(await send(server.port, ["[1]"]), "ok", "the server keeps reading bodies");
  assert.deepEqual(await server.next(), { ok: true, value: [1], empty: false });
});

test("a client that hangs up mid-body: the read ends as aborted", async (t) => {
  const server = await bodyServer(t);
  const req = request({ port: server.port, host: "127.0.0.1", method: "POST", headers: { "content-length": 1000 } });
  req.on("error", () => {});
  req.write('{"partial":', () => req.destroy());
  assert.deepEqual(await server.next(), { ok: false, reason: "aborted" });
});
