// Finished spans queued as bytes: parts of a few spans, batches of whole parts, the bounds in
// spans and in bytes, a span larger than a part, and buffers given back only when released.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SpanParts } from "../../lib/telemetry/span-parts.ts";

/** A span's stand-in: its JSON text, written by the queue's writer contract with a bound of three bytes a character. */
class Spans extends SpanParts {
  put(text: string): boolean {
    return this.add(text, 3 * text.length, (t, buf, at) => at + buf.write(t, at, "utf8"));
  }
}
const json = (i: number, pad = 0): string => JSON.stringify({ i, pad: "é".repeat(pad) });
const text = (chunks: Buffer[]): string => Buffer.concat(chunks).toString("utf8");

test("batches are whole parts, oldest first, their spans comma-separated", () => {
  const q = new Spans({ spansPerPart: 2, maxSpans: 100, maxBytes: 1 << 20 });
  for (let i = 0; i < 5; i++) assert.equal(q.put(json(i)), true);
  assert.equal(q.size, 5);
  const first = q.take(3)!;
  // Parts of two: a third span would split a part, so the batch holds one part... unless it is the first.
  assert.equal(first.spans, 2);
  assert.deepEqual(JSON.parse(`[${text(first.chunks)}]`), [
    { i: 0, pad: "" },
    { i: 1, pad: "" },
  ]);
  const rest = q.take(100)!;
  assert.equal(rest.spans, 3);
  assert.deepEqual(
    JSON.parse(`[${text(rest.chunks)}]`).map((s: { i: number }) => s.i),
    [2, 3, 4],
  );
  assert.equal(q.size, 0);
  assert.equal(q.take(1), null);
  // At least one part, even over the bound asked for.
  q.put(json(5));
  q.put(json(6));
  assert.equal(q.take(1)!.spans, 2);
});

test("full by spans or by bytes: the span is refused and nothing queued changes", () => {
  const bySpans = new Spans({ spansPerPart: 16, maxSpans: 3, maxBytes: 1 << 20 });
  for (let i = 0; i < 3; i++) assert.equal(bySpans.put(json(i)), true);
  assert.equal(bySpans.put(json(3)), false);
  assert.equal(bySpans.size, 3);
  const byBytes = new Spans({ spansPerPart: 16, maxSpans: 100, maxBytes: 100 });
  assert.equal(byBytes.put(json(0, 20)), true, "61 bytes with its comma");
  assert.equal(byBytes.put(json(1, 20)), false);
  assert.equal(byBytes.put(json(2)), true, "a smaller one still fits");
  assert.deepEqual(
    JSON.parse(`[${text(byBytes.take(10)!.chunks)}]`).map((s: { i: number }) => s.i),
    [0, 2],
  );
});

test("a span larger than a part gets a part of its own; multi-byte text is measured, not guessed", () => {
  const q = new Spans({ spansPerPart: 16, maxSpans: 100, maxBytes: 1 << 22 });
  q.put(json(0));
  q.put(json(1, 20_000));
  q.put(json(2, 3));
  const batch = q.take(100)!;
  assert.equal(batch.spans, 3);
  const spans = JSON.parse(`[${text(batch.chunks)}]`) as { i: number; pad: string }[];
  assert.deepEqual(
    spans.map((s) => [s.i, s.pad.length]),
    [
      [0, 0],
      [1, 20_000],
      [2, 3],
    ],
  );
});

test("buffers come back for reuse only when released", () => {
  const q = new Spans({ spansPerPart: 1, maxSpans: 100, maxBytes: 1 << 20 });
  q.put(json(0));
  const held = q.take(1)!;
  q.put(json(1));
  const other = q.take(1)!;
  assert.notEqual(other.chunks[0]!.buffer, held.chunks[0]!.buffer, "not reused while the first batch may still be read");
  assert.deepEqual(JSON.parse(text(held.chunks)), { i: 0, pad: "" });
  held.release();
  held.release();
  q.put(json(2));
  const reused = q.take(1)!;
  assert.equal(reused.chunks[0]!.buffer, held.chunks[0]!.buffer);
  assert.deepEqual(JSON.parse(text(reused.chunks)), { i: 2, pad: "" });
  q.put(json(3));
  assert.notEqual(q.take(1)!.chunks[0]!.buffer, reused.chunks[0]!.buffer, "released twice, given back once");
});
