// Spans written as an OTLP JSON export body: what the official definitions read back from it,
// names and values that need escaping included, and the flags of a span that was not sampled.
import assert from "node:assert/strict";
import { test } from "node:test";
import { exportRequest, spanBound, writeSpan } from "../../lib/telemetry/otlp.ts";
import { SpanKind, type SpanRecord } from "../../lib/telemetry/span.ts";
import { decodeSpans } from "../helpers/otlp.ts";

const record = (over: Partial<SpanRecord>): SpanRecord => ({
  name: "tools/call add",
  kind: SpanKind.server,
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  sampled: true,
  startNs: 1_795_817_523_141_000_001n,
  endNs: 1_795_817_523_141_100_002n,
  attributes: {},
  ...over,
});

test("escapes, every attribute type, parent, error and flags", async () => {
  const odd = 'tools/call "q\\uo\u00e9\u{1F600}\n';
  const spans = [
    record({ name: odd, attributes: { [odd]: odd, i: 7, d: 0.25, b: false }, parentSpanId: "00f067aa0ba902b7", error: "boom" }),
    record({ sampled: false }),
  ];
  const body = exportRequest({ "service.name": "spec \u00e9" }, spans);
  const parsed = JSON.parse(body).resourceSpans[0].scopeSpans[0].spans;
  assert.deepEqual(
    parsed.map((s: { flags: number; startTimeUnixNano: string; status?: unknown }) => [s.flags, s.startTimeUnixNano, s.status]),
    [
      [1, "1795817523141000001", { code: 2 }],
      [0, "1795817523141000001", undefined],
    ],
  );
  const [first, second] = await decodeSpans([body]);
  assert.equal(first!.service, "spec \u00e9");
  assert.equal(first!.name, odd);
  assert.deepEqual(first!.attributes, { [odd]: odd, i: 7, d: 0.25, b: false });
  assert.equal(first!.parentSpanId, "00f067aa0ba902b7");
  assert.equal(first!.error, true);
  assert.equal(second!.error, false);
  assert.equal(second!.parentSpanId, "");
});

test("a span is written within its bound, whatever its text", () => {
  const worst = "\u0001".repeat(50) + "\ud800".repeat(50) + "😀".repeat(25);
  for (const span of [
    record({}),
    record({ name: worst, attributes: { [worst]: worst, n: -1.7976931348623157e308, i: -9007199254740991, b: true }, parentSpanId: worst, error: worst }),
  ]) {
    const bound = spanBound(span);
    const buf = Buffer.alloc(bound + 1, 0xaa);
    const end = writeSpan(span, buf, 0);
    assert.ok(end <= bound);
    assert.equal(buf[bound], 0xaa);
    assert.equal(JSON.parse(buf.toString("utf8", 0, end)).name, span.name);
  }
});
