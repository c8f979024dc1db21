// Reading a body, the HTTP kit's one reader: JSON request bodies in one chunk or many, the
// size limit before and during the upload, bodies that are not JSON, a client that hangs up
// halfway, and the coded failures of the raw reader (requests and answers read back).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { BodyError, readBody, readJsonBody, type BodyResult, type ReadBodyOptions } from "../../lib/http/body.ts";
import { headersOf, statusOf, wireCodeOf } from "../../lib/http/status.ts";

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

/** A server that reads each body with readBody and answers the outcome the way a side would: the bytes, or the coded failure's status. */
async function rawServer(
  t: { after(fn: () => unknown): void },
  options: ReadBodyOptions = {},
): Promise<{ port: number; failures: unknown[]; failed: Promise<unknown> }> {
  const failures: unknown[] = [];
  let first: (err: unknown) => void = () => {};
  const failed = new Promise<unknown>((resolve) => (first = resolve));
  const server = createServer((req, res) => {
    readBody(req, LIMIT, options).then(
      (body) => res.end(`${body.length}:${body.toString("utf8").slice(0, 20)}`),
      (err: unknown) => {
        failures.push(err);
        first(err);
        if (!(err instanceof BodyError)) return res.writeHead(503).end("refused");
        if (!res.destroyed) res.writeHead(statusOf(err.code), headersOf(err.code)).end(err.code);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, failures, failed };
}

test("readBody: the bytes whole, an empty body as none, and coded failures the status table maps", async (t) => {
  const server = await rawServer(t);
  const url = `http://127.0.0.1:${server.port}/`;
  assert.equal(await (await fetch(url, { method: "POST", body: "form=1&x=é" })).text(), "11:form=1&x=é");
  assert.equal(await (await fetch(url, { method: "POST" })).text(), "0:");
  const declared = await fetch(url, { method: "POST", body: "z".repeat(LIMIT + 1) });
  assert.equal(declared.status, 413);
  assert.equal(declared.headers.get("connection"), "close");
  assert.equal(await declared.text(), "HUBMCP_BODY_TOO_LARGE");
  // Chunked, so only counting finds it; the rest is drained, so the 413 still reaches the client.
  assert.equal(await send(server.port, ["y".repeat(60_000), "y".repeat(60_000)]), "HUBMCP_BODY_TOO_LARGE");
  const failure = server.failures.at(-1) as BodyError;
  assert.equal(failure.code, "HUBMCP_BODY_TOO_LARGE");
  assert.equal(failure.message, `The request body is larger than ${LIMIT} bytes`);
  assert.equal(statusOf("HUBMCP_BODY_NOT_JSON"), 400);
  assert.equal(statusOf("HUBMCP_BODY_ABORTED"), 400);
  assert.deepEqual(headersOf("HUBMCP_BODY_ABORTED"), {});
  assert.equal(wireCodeOf("HUBMCP_BODY_TOO_LARGE"), "body_too_large", "JSON error bodies keep the wire code");
});

test("readBody: a hang-up mid-body is body_aborted; `grow` may refuse; an answer read back is cut, not drained", async (t) => {
  const plain = await rawServer(t);
  const req = request({ port: plain.port, host: "127.0.0.1", method: "POST", headers: { "content-length": 1000 } });
  req.on("error", () => {});
  req.write("partial", () => req.destroy());
  const aborted = (await plain.failed) as BodyError;
  assert.equal(aborted.code, "HUBMCP_BODY_ABORTED");
  assert.equal(aborted.message, "The request body broke off");
  assert.equal((aborted.cause as NodeJS.ErrnoException).code, "ECONNRESET", "the stream's own error is kept as the cause");

  const refusal = new Error("over budget");
  const sizes: number[] = [];
  const budgeted = await rawServer(t, {
    grow: (size) => {
      sizes.push(size);
      if (size > 10) throw refusal;
    },
  });
  assert.equal(await send(budgeted.port, ["12345", "67890", "abc"]), "refused");
  assert.equal(budgeted.failures[0], refusal, "what grow threw is what the read rejects with");
  assert.ok(sizes.length >= 1 && sizes.at(-1)! > 10);

  // Reading an answer back: overflow "destroy" cuts the sender off instead of reading it all.
  const big = createServer((_req, res) => res.end("q".repeat(LIMIT + 1)));
  await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => big.close(resolve)));
  const answer = await new Promise<IncomingMessage>((resolve) => request({ port: (big.address() as AddressInfo).port, host: "127.0.0.1" }, resolve).end());
  await assert.rejects(readBody(answer, LIMIT, { overflow: "destroy" }), (err: unknown) => err instanceof BodyError && err.code === "HUBMCP_BODY_TOO_LARGE");
  assert.ok(answer.destroyed);
});
