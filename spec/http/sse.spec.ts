// The SSE writer (exact frames, keepalive, the guard against a client that never reads)
// and the test parser in spec/helpers/sse-client.ts, fed one byte at a time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { formatComment, formatEvent, SseStream, type SseStreamOptions } from "../../lib/http/sse.ts";
import { SseParser } from "../helpers/sse-client.ts";

test("frames: exact bytes for every field, multi-line data split on any line break", () => {
  assert.equal(formatEvent({ data: "x" }), "data: x\n\n");
  assert.equal(formatEvent({ event: "endpoint", id: "g0.1", retry: 250.7, data: "/mcp" }), "event: endpoint\nid: g0.1\nretry: 250\ndata: /mcp\n\n");
  assert.equal(formatEvent({ id: "p1.1", data: "", retry: 1000 }), "id: p1.1\nretry: 1000\ndata: \n\n");
  assert.equal(formatEvent({ data: "a\r\nb\rc\nd" }), "data: a\ndata: b\ndata: c\ndata: d\n\n");
  assert.equal(formatComment("keep\nalive"), ": keep alive\n\n");
  assert.throws(() => formatEvent({ event: "a\nb", data: "" }), TypeError);
  assert.throws(() => formatEvent({ id: "a\0", data: "" }), TypeError);
});

test("parser: byte-at-a-time input gives the same events as one chunk, CRLF, CR, BOM and UTF-8 splits included", () => {
  const wire =
    "\uFEFF: hello\r\n" +
    "event: endpoint\r\nid: g0.1\r\nretry: 250\r\ndata: /mcp?session_id=abc\r\n\r\n" +
    "data: first\rdata: second\r\r" +
    "id: p0.2\ndata: \n\n" +
    'data: {"text":"héllo → 世界"}\n\n' +
    "data:no-space\nignored-field: x\nretry: soon\n\n" +
    "id: only-id\n\n" +
    "event: x\n\n" +
    "data: tail";
  const bytes = new TextEncoder().encode(wire);
  const whole = new SseParser();
  const expected = whole.push(bytes);
  const parser = new SseParser();
  const got = [];
  for (const b of bytes) got.push(...parser.push(Uint8Array.of(b)));
  assert.deepEqual(got, expected);
  assert.deepEqual(parser.comments, ["hello"]);
  assert.deepEqual(
    got.map((e) => [e.event, e.data, e.lastEventId, e.hasId, e.retry]),
    [
      ["endpoint", "/mcp?session_id=abc", "g0.1", true, 250],
      ["message", "first\nsecond", "g0.1", false, undefined],
      ["message", "", "p0.2", true, undefined],
      ["message", '{"text":"héllo → 世界"}', "p0.2", false, undefined],
      ["message", "no-space", "p0.2", false, undefined],
    ],
  );
  assert.equal(parser.retry, 250, "a non-numeric retry is ignored");
});

/** A server whose one request becomes an SseStream; `client(port)` makes that request. */
async function withStream(options: SseStreamOptions, client: (port: number) => void, body: (stream: SseStream) => Promise<void>): Promise<void> {
  let resolveStream!: (s: SseStream) => void;
  const opened = new Promise<SseStream>((r) => (resolveStream = r));
  const server = createServer((_req, res) => resolveStream(new SseStream(res, options)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    client((server.address() as AddressInfo).port);
    await body(await opened);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

test("keepalive comments arrive on an idle stream, and close() stops them and is safe twice", async () => {
  const frames: string[] = [];
  let sawKeepalive!: () => void;
  const keepalive = new Promise<void>((r) => (sawKeepalive = r));
  const reader = (port: number): void => {
    request({ port, host: "127.0.0.1" }, (res) => {
      assert.equal(res.headers["content-type"], "text/event-stream; charset=utf-8");
      assert.equal(res.headers["cache-control"], "no-cache, no-transform");
      assert.equal(res.headers["x-accel-buffering"], "no");
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        frames.push(chunk);
        if (chunk.includes(": keepalive\n\n")) sawKeepalive();
      });
    }).end();
  };
  await withStream({ keepaliveMs: 10 }, reader, async (stream) => {
    assert.equal(stream.send({ event: "open", data: "{}" }), true);
    await keepalive;
    let closedCalls = 0;
    stream.onClose(() => closedCalls++);
    stream.close();
    stream.close();
    assert.equal(stream.closed, true);
    assert.equal(stream.send({ data: "late" }), false);
    assert.equal(stream.comment("late"), false);
    stream.onClose(() => closedCalls++);
    assert.equal(closedCalls, 2, "onClose after close runs at once");
    let flushed: boolean | undefined;
    stream.close((f) => (flushed = f));
    assert.equal(flushed, false, "a second close reports nothing more was flushed");
  });
  assert.ok(frames.join("").startsWith("event: open\ndata: {}\n\n"));
});

test("a client that never reads is dropped once its unread bytes pass the limit; the server stays responsive", async () => {
  const neverReads = (port: number): void => {
    // A raw socket that sends a request and then never reads a byte.
    const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    socket.pause();
    socket.on("error", () => {});
  };
  await withStream({ maxBufferedBytes: 64 * 1024, keepaliveMs: 60_000 }, neverReads, async (stream) => {
    let closed = false;
    stream.onClose(() => (closed = true));
    const chunk = "x".repeat(64 * 1024);
    let sent = 0;
    // Bounded: loopback buffers hold a few MB at most before the guard trips.
    while (!closed && sent < 4096) {
      stream.send({ data: chunk });
      sent++;
      if (sent % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(closed, true, "the stream was dropped");
    assert.equal(stream.send({ data: "more" }), false);
  });
});

test("a stream on a response whose client is already gone is closed at once", async () => {
  let captured!: ServerResponse;
  let gone!: () => void;
  const closed = new Promise<void>((r) => (gone = r));
  const server = createServer((_req, res) => {
    captured = res;
    res.once("close", () => gone());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const req = request({ port, host: "127.0.0.1" });
  req.on("error", () => {});
  req.end();
  while (!captured) await new Promise((r) => setImmediate(r));
  req.destroy();
  await closed;
  const stream = new SseStream(captured, { keepaliveMs: 10 });
  assert.equal(stream.closed, true);
  await new Promise((r) => server.close(r));
});
