// The one bind and the one graceful close: a free port, an address in use refused without
// leaving anything open, the CORS-readable 400 for requests node cannot parse, and a close
// that stops accepting, waits (bounded) for running exchanges, cuts the rest, and is the
// same promise when called twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { CORS } from "../../lib/http/cors.ts";
import { bindHttp, gracefulClose, urlHost } from "../../lib/http/listen.ts";

const LIMITS = { headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 1_000, maxConnections: 10 };

test("bindHttp: a free port that answers; a taken one is refused and nothing is left listening", async (t) => {
  const errors: Error[] = [];
  const { server, port } = await bindHttp((_req, res) => res.end("hi"), { host: "127.0.0.1", port: 0, limits: LIMITS, onError: (err) => errors.push(err) });
  const close = gracefulClose(server, { timeoutMs: 1_000 });
  t.after(close);
  assert.ok(port > 0);
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "hi");
  assert.equal(server.headersTimeout, LIMITS.headersTimeoutMs, "slowloris bounds are on");
  assert.ok(server.listenerCount("connection") > 0, "the connection cap watches new sockets");
  await assert.rejects(
    bindHttp(() => {}, { host: "127.0.0.1", port, limits: LIMITS, onError: () => {} }),
    { code: "EADDRINUSE" },
  );
  // Once listening, a socket error is reported, not thrown at the process.
  server.emit("error", new Error("EMFILE"));
  assert.equal(errors[0]?.message, "EMFILE");
  assert.equal(urlHost("0.0.0.0"), "127.0.0.1");
  assert.equal(urlHost("::"), "[::1]");
  assert.equal(urlHost("::1"), "[::1]");
});

test("a request node cannot parse gets a JSON 400 (431 for headers past the limit) with the profile's CORS headers", async (t) => {
  const { server, port } = await bindHttp(() => {}, { host: "127.0.0.1", port: 0, limits: LIMITS, onError: () => {}, badRequestCors: CORS.gateway });
  t.after(gracefulClose(server, { timeoutMs: 1_000 }));
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => (text += c));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
  assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(raw, /\r\naccess-control-allow-origin: \*\r\n/);
  assert.match(raw, /\r\ncontent-length: 23\r\n\r\n\{"error":"bad_request"\}$/);
  const overflow = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET /?q=${"a".repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => (text += c));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
  assert.match(overflow, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/, "headers past the limit are too large, not malformed");
  assert.match(overflow, /\{"error":"headers_too_large"\}$/);
});

test("gracefulClose: stops accepting, lets a running exchange finish, cuts what outlives the bound, safe twice", async () => {
  const steps: string[] = [];
  let finishSlow: () => void = () => {};
  let running = 0;
  let idleNow: () => void = () => {};
  const idle = (): Promise<void> => (running === 0 ? Promise.resolve() : new Promise((done) => (idleNow = done)));
  let arrived: () => void = () => {};
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const { server, port } = await bindHttp(
    (req, res) => {
      running++;
      if (req.url === "/slow") {
        finishSlow = () => {
          res.end("done");
          running--;
          if (running === 0) idleNow();
        };
        arrived();
      } else arrived(); // "/stuck" is never answered
    },
    { host: "127.0.0.1", port: 0, limits: LIMITS, onError: () => {} },
  );
  const slow = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
  await slowArrived;
  const close = gracefulClose(server, {
    begin: () => {
      steps.push("begin");
      finishSlow();
    },
    idle,
    timeoutMs: 10_000,
    end: () => steps.push("end"),
  });
  const first = close();
  assert.equal(close(), first, "a second call gets the same promise");
  assert.equal(await slow, "done", "the running exchange finished");
  await first;
  assert.deepEqual(steps, ["begin", "end"]);
  assert.equal(server.listening, false);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/slow`), "no longer accepting");
});

test("gracefulClose: an exchange that never finishes is cut when the bound runs out", async () => {
  let arrived: () => void = () => {};
  const stuckArrived = new Promise<void>((resolve) => (arrived = resolve));
  const { server, port } = await bindHttp(() => arrived(), { host: "127.0.0.1", port: 0, limits: LIMITS, onError: () => {} });
  const stuck = fetch(`http://127.0.0.1:${port}/stuck`).then(
    () => "answered",
    () => "cut",
  );
  await stuckArrived;
  await gracefulClose(server, { idle: () => new Promise(() => {}), timeoutMs: 50 })();
  assert.equal(await stuck, "cut");
});
