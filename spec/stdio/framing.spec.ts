import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { LineSplitter, lineWriter, readLines } from "../../lib/stdio/framing.ts";

test("splits lines fed one byte at a time, and skips the rest of a line that is too long", () => {
  const lines: Array<string | null> = [];
  const splitter = new LineSplitter(8, (line) => lines.push(line));
  for (const byte of Buffer.from("héllo\n0123456789abc\nok\n")) splitter.push(Buffer.from([byte]));
  assert.deepEqual(lines, ["héllo", null, "ok"]);
});

test("readLines: JSON per line, CRLF and blank lines tolerated, bad lines reported, end reported", async () => {
  const input = new PassThrough();
  const seen: unknown[] = [];
  const ended = new Promise<void>((end) => readLines(input, { message: (v) => seen.push(v), malformed: (r) => seen.push(`malformed:${r}`), end }, 64));
  input.write('{"a":1}\r\n\n  \nnot json\n');
  input.write(`${"x".repeat(100)}\n[1,2]\n`);
  input.end();
  await ended;
  assert.deepEqual(seen, [{ a: 1 }, "malformed:parse", "malformed:too-long", [1, 2]]);
});

test("lineWriter: one message per line; a broken output is reported once and later writes are dropped", async () => {
  const output = new PassThrough();
  let broken = 0;
  const send = lineWriter(output, () => broken++);
  send({ text: "two\nlines" });
  assert.equal(output.read().toString(), '{"text":"two\\nlines"}\n');
  output.emit("error", new Error("EPIPE"));
  output.emit("error", new Error("EPIPE"));
  send({ dropped: true });
  assert.equal(broken, 1);
  assert.equal(output.read(), null);
});
