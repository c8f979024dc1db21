// The page's event-stream parser, its module run in Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser } from "../../../lib/console/client/sse.js";
import { SSE_CASES } from "../../http/sse-cases.ts";

type Event = { event: string; data: string; id: string };

test("the event-stream parser joins data lines, keeps ids and retry, and skips comments", () => {
  const events: Event[] = [];
  const parser = createSseParser((e) => events.push(e));
  parser.push(": keepalive\n\nid: 7\nretry: 1500\nevent: endpoint\ndata: /mcp\n\n");
  parser.push('data: {"a":\ndata:1}\r');
  parser.push("\n\r\n");
  parser.push("data: unterminated");
  parser.end();
  assert.deepEqual(events, [
    { event: "endpoint", data: "/mcp", id: "7" },
    { event: "message", data: '{"a":\n1}', id: "7" },
  ]);
  assert.equal(parser.retry, 1500);
  assert.equal(parser.lastEventId, "7");
});

test("a lone CR ends a line, and an event split anywhere across chunks arrives whole", () => {
  const text = "event: message\rdata: x\r\rdata: y\n\n";
  for (let cut = 0; cut <= text.length; cut++) {
    const events: Event[] = [];
    const parser = createSseParser((e) => events.push(e));
    parser.push(text.slice(0, cut));
    parser.push(text.slice(cut));
    assert.deepEqual(
      events.map((e) => e.data),
      ["x", "y"],
      `cut at ${cut}`,
    );
  }
});

test("fed one character at a time, the parser yields the same events", () => {
  const text = ": hi\r\nid: 1\r\ndata: a\r\ndata: b\r\n\r\nevent: x\ndata:c\n\n";
  const events: Event[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const ch of text) parser.push(ch);
  assert.deepEqual(events, [
    { event: "message", data: "a\nb", id: "1" },
    { event: "x", data: "c", id: "1" },
  ]);
});

test("the page's parser agrees with lib/http/sse-reader.ts on the shared cases, whole and one character at a time", () => {
  for (const c of SSE_CASES) {
    for (const pieces of [[c.stream], [...c.stream]]) {
      const events: Event[] = [];
      const parser = createSseParser((e) => events.push(e));
      for (const piece of pieces) parser.push(piece);
      parser.end();
      assert.deepEqual(events, c.events, c.name);
    }
  }
});
