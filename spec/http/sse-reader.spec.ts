import { test } from "node:test";
import assert from "node:assert/strict";
import { SseReader } from "../../lib/http/sse-reader.ts";

const STREAM = ": keepalive\r\nid: 7\r\nevent: endpoint\r\ndata: /mcp?session_id=abc\r\n\r\ndata: {\"a\":1}\ndata: {\"b\":2}\n\nretry: 100\rdata:x\r\r\n\nevent: ignored-without-data\n\n";
const EXPECTED = [
  { event: "endpoint", data: "/mcp?session_id=abc", id: "7" },
  { event: "message", data: '{"a":1}\n{"b":2}', id: "7" },
  { event: "message", data: "x", id: "7" },
];

test("parses fields, comments and all three line ends, whole or one character at a time", () => {
  assert.deepEqual(new SseReader().push(STREAM), EXPECTED);
  const reader = new SseReader();
  const events = [...STREAM].flatMap((c) => reader.push(c));
  assert.deepEqual(events, EXPECTED);
});

test("an event larger than the bound is refused", () => {
  assert.throws(() => new SseReader(8).push("data: 0123456789"), /too long/);
  assert.throws(() => new SseReader(8).push("data: 01234\ndata: 56789\n"), /too large/);
});
