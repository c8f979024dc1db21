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

test("lineWriter: one message per line, the lines of one turn in one write; a broken output is reported once and later writes are dropped", async () => {
  const output = new PassThrough();
  const writes: string[] = [];
  output.on("data", (chunk: Buffer) => writes.push(chunk.toString()));
  let broken = 0;
  const send = lineWriter(output, () => broken++);
  assert.equal(send({ text: "two\nlines" }), true);
  send({ n: 2 });
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, ['{"text":"two\\nlines"}\n{"n":2}\n']);
  send({ n: 3 });
  send.flush();
  send.flush();
  assert.deepEqual(writes.slice(1), ['{"n":3}\n']);
  send({ lost: true });
  output.emit("error", new Error("EPIPE"));
  output.emit("error", new Error("EPIPE"));
  assert.equal(send({ dropped: true }), false);
  send.flush();
  assert.equal(broken, 1);
  assert.equal(writes.length, 2);
});

test("lineWriter: nothing is written to an output that has ended", () => {
  const output = new PassThrough();
  const send = lineWriter(output, () => {});
  send({ queued: true });
  output.end();
  send.flush();
  assert.equal(send({ late: true }), false);
  assert.equal(output.read(), null);
});

test("readLines: the stop function detaches the input; close ends reading once", async () => {
  const input = new PassThrough();
  const seen: unknown[] = [];
  let ends = 0;
  input.setEncoding("utf8");
  const stop = readLines(input, { message: (v) => seen.push(v), malformed: () => {}, end: () => ends++ });
  input.write("1\n");
  await new Promise<void>((resolve) => setImmediate(resolve));
  stop();
  input.write("2\n");
  input.emit("end");
  input.emit("close");
  assert.deepEqual(seen, [1]);
  assert.equal(ends, 1);
});
