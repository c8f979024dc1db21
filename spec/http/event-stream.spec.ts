// Resumable streams without sockets: ids, what is kept for replay, the per-session cap,
// and what ending or discarding a stream leaves behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventStream, parseEventId, StreamDirectory } from "../../lib/http/event-stream.ts";
import type { SseEvent, SseStream } from "../../lib/http/sse.ts";
import { Session } from "../../lib/session/session.ts";

const limits = { maxEvents: 100, maxBytes: 1024 * 1024, retryMs: 1000 };
const note = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/message", params: { level: "info", data: n } });

test("event ids: only <stream>.<seq> that we mint parse", () => {
  assert.deepEqual(parseEventId("p1f.17"), { key: "p1f", seq: 17 });
  assert.deepEqual(parseEventId("a.b.3"), { key: "a.b", seq: 3 });
  for (const bad of ["", ".3", "p1", "p1.", "p1.x", "p1.-1", "p1.1.5e3x", `p1.${2 ** 60}`]) assert.equal(parseEventId(bad), null, bad);
});

/** What a client reconnecting with Last-Event-ID `<key>.0` is sent: the replayed message numbers. */
function replayed(stream: EventStream): number[] {
  const got: SseEvent[] = [];
  const sse = { send: (e: SseEvent) => (got.push(e), true), onClose() {}, close() {} } as unknown as SseStream;
  stream.attach(sse, 0);
  return got.slice(1).map((e) => (JSON.parse(e.data) as ReturnType<typeof note>).params.data);
}

test("a stream keeps its newest events within both the event and the byte bound", () => {
  const byCount = new EventStream("g0", { ...limits, maxEvents: 2 });
  for (let n = 1; n <= 5; n++) assert.equal(byCount.send(note(n)), true, "kept even with no connection");
  assert.deepEqual(replayed(byCount), [4, 5]);
  const size = JSON.stringify(note(1)).length;
  const byBytes = new EventStream("g1", { ...limits, maxBytes: 2 * size + 1 });
  for (let n = 1; n <= 5; n++) byBytes.send(note(n));
  assert.deepEqual(replayed(byBytes), [4, 5], "two events fit the byte bound, three do not");
  const oneHuge = new EventStream("g2", { ...limits, maxBytes: 10 });
  oneHuge.send(note(1));
  assert.deepEqual(replayed(oneHuge), [1], "the newest event is kept even when it alone exceeds the bound");
  byBytes.end();
  assert.equal(byBytes.ended, true);
  assert.equal(byBytes.send(note(6)), false, "nothing goes out after the end");
});

test("the directory: per-session keys, a cap that drops detached streams first, cleanup on end", () => {
  const directory = new StreamDirectory(limits, 3);
  const session = new Session("s", 0);
  const other = new Session("o", 0);
  const loose = directory.create(null, "p");
  assert.equal(directory.find(session, loose.key), undefined, "session-less streams are not kept");
  const [a, b, c] = [directory.create(session, "g"), directory.create(session, "p"), directory.create(session, "p")];
  assert.equal(new Set([a.key, b.key, c.key, loose.key]).size, 4);
  assert.equal(directory.find(other, a.key), undefined, "another session never finds them");
  let discarded = 0;
  a.onDiscard(() => discarded++);
  const d = directory.create(session, "g");
  assert.equal(directory.count(session), 3);
  assert.equal(directory.find(session, a.key), undefined, "the oldest detached one made room");
  assert.equal(discarded, 1, "a discarded stream tells its owner");
  b.end();
  assert.equal(directory.find(session, b.key), undefined, "an ended stream with nothing kept is forgotten");
  c.send(note(1));
  c.end();
  assert.equal(directory.find(session, c.key), c, "an ended stream with kept events waits for its resume");
  let cDiscards = 0;
  c.onDiscard(() => cDiscards++);
  session.end();
  assert.equal(directory.count(session), 0);
  assert.equal(directory.find(session, d.key), undefined);
  assert.equal(cDiscards, 0, "a stream whose end was sent is not a discard");
  assert.equal(directory.count(other), 0);
});
