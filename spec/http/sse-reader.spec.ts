// The one event-stream reader: the shared WHATWG cases whole, split at every point, and fed
// one byte at a time; retry; UTF-8 split inside a character; the event size bound (empty
// data lines included); and hostile streams of several megabytes that finish (linear).
import { test } from "node:test";
import assert from "node:assert/strict";
import { carriesMessage, readEvents, SseReadError, SseReader } from "../../lib/http/sse-reader.ts";
import { SSE_CASES } from "./sse-cases.ts";

function readAll(reader: SseReader, chunks: Iterable<string | Uint8Array>): unknown[] {
  const out: unknown[] = [];
  for (const chunk of chunks) out.push(...reader.push(chunk));
  return out;
}

test("the shared cases: whole, split at every point, and one byte at a time", () => {
  for (const c of SSE_CASES) {
    assert.deepEqual(new SseReader().push(c.stream), c.events, c.name);
    for (let cut = 0; cut <= c.stream.length; cut++) {
      assert.deepEqual(readAll(new SseReader(), [c.stream.slice(0, cut), c.stream.slice(cut)]), c.events, `${c.name}, cut at ${cut}`);
    }
    const bytes = Buffer.from(c.stream, "utf8");
    assert.deepEqual(
      readAll(
        new SseReader(),
        [...bytes].map((b) => Uint8Array.of(b)),
      ),
      c.events,
      `${c.name}, byte by byte`,
    );
  }
});

test("a CR ending one chunk and the LF starting the next are one line end, even with empty chunks between", () => {
  const reader = new SseReader();
  assert.deepEqual(readAll(reader, ["data: a\r", "", "\n", "\r", "\n"]), [{ event: "message", data: "a", id: "" }]);
  assert.deepEqual(reader.push("data: b\n\n"), [{ event: "message", data: "b", id: "" }]);
});

test("retry: the last valid value is kept", () => {
  const reader = new SseReader();
  reader.push("retry: 1500\n\nretry: 2s\n\n");
  assert.equal(reader.retry, 1500);
});

test("the BOM is dropped only at the very start", () => {
  assert.deepEqual(new SseReader().push("data: a\n\n\uFEFFdata: b\n\n")[1], undefined);
  assert.deepEqual(readAll(new SseReader(), [Uint8Array.of(0xef), Uint8Array.of(0xbb, 0xbf), "data: x\n\n"]), [{ event: "message", data: "x", id: "" }]);
});

test("an event past the bound is refused with a coded error: one long line, many data lines, many empty data lines", () => {
  const over = (stream: string | string[]): SseReadError => {
    const reader = new SseReader({ maxEventChars: 64 });
    let caught: unknown;
    try {
      readAll(reader, typeof stream === "string" ? [stream] : stream);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof SseReadError, String(caught));
    assert.equal(caught.code, "HUBMCP_SSE_EVENT_TOO_LARGE");
    return caught;
  };
  over(`data: ${"x".repeat(100)}`);
  over([...`data: ${"x".repeat(100)}`]);
  over("data: 0123456789\n".repeat(10));
  over("data:\n".repeat(20));
  over("data\n".repeat(20));
  over(": comment\n".repeat(10));
  assert.match(over("data:\n".repeat(20)).message, /larger than 64 characters/);
  // Under the bound, and many events each under it: fine.
  const reader = new SseReader({ maxEventChars: 64 });
  assert.equal(
    readAll(
      reader,
      Array.from({ length: 1000 }, () => "data: 0123456789\n\n"),
    ).length,
    1000,
  );
  assert.equal(readAll(reader, ["\n".repeat(10_000)]).length, 0);
});

test("5.5 MB hostile streams finish: one event of many short lines is read, empty data lines trip the bound", { timeout: 60_000 }, () => {
  // A reader that re-summed earlier lines for each new one needs ~10^11 steps here.
  const lines = 700_000;
  const big = new SseReader();
  const chunks: string[] = [];
  const line = "data: 1\n";
  for (let i = 0; i < lines; i += 10_000) chunks.push(line.repeat(Math.min(10_000, lines - i)));
  chunks.push("\n");
  const [event] = readAll(big, chunks) as Array<{ data: string }>;
  assert.equal(event!.data.length, lines * 2 - 1);

  const capped = new SseReader({ maxEventChars: 1024 * 1024 });
  assert.throws(() => readAll(capped, ["data:\n".repeat(950_000)]), SseReadError);
});

test("readEvents and carriesMessage: only `message` events with data carry a JSON-RPC message", async () => {
  const body = [Buffer.from('id: p1\ndata:\n\nevent: ping\ndata: x\n\ndata: {"a"'), Buffer.from(":1}\n\n")];
  const seen = [];
  for await (const e of readEvents(body, 1024)) seen.push([e.id, carriesMessage(e), e.data]);
  assert.deepEqual(seen, [
    ["p1", false, ""],
    ["p1", false, "x"],
    ["p1", true, '{"a":1}'],
  ]);
  await assert.rejects(async () => {
    for await (const _ of readEvents([`data: ${"x".repeat(50)}\n\n`], 10)) void _;
  }, SseReadError);
});
