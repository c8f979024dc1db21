// The batch exporter against real loopback collectors: batches, a bounded queue, and drops
// (counted) when the collector refuses or is gone; spans also reach the diagnostics channel.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { test } from "node:test";
import { tracingConfig } from "../../lib/telemetry/config.ts";
import { SpanKind, type SpanRecord } from "../../lib/telemetry/span.ts";
import { SPAN_CHANNEL, Tracer } from "../../lib/telemetry/tracer.ts";
import { closedPort, decodeSpans, startCollector } from "../helpers/otlp.ts";
import { createServer } from "node:http";

const LIMITS = { maxQueue: 4, maxBatch: 2, delayMs: 60_000, timeoutMs: 5_000 };

function spans(tracer: Tracer, n: number, attributes: Record<string, string | number | boolean> = {}): void {
  const root = tracer.context(null);
  // Every other span is a child of the first: both shapes go through the encoder.
  const under = { traceId: root.traceId, spanId: root.spanId, sampled: root.sampled };
  for (let i = 0; i < n; i++)
    tracer.start(`op ${i}`, SpanKind.internal, tracer.context(i % 2 ? under : null), { ...attributes }).end(i % 2 ? "boom" : undefined);
}

test("a full batch goes at once; flush sends the rest; attribute types survive the official decoder", async (t) => {
  const collector = await startCollector(t);
  const tracer = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, "spec"), LIMITS);
  spans(tracer, 2, { s: "x", i: 3, d: 0.5, b: true });
  await collector.until((b) => b.length === 1);
  spans(tracer, 1);
  await tracer.exporter!.flush();
  assert.equal(collector.bodies.length, 2);
  assert.equal(tracer.exporter!.exported, 3);
  const decoded = await decodeSpans(collector.bodies);
  assert.deepEqual(decoded[0]!.attributes, { s: "x", i: 3, d: 0.5, b: true });
  assert.equal(decoded[1]!.error, true);
  assert.equal(decoded[1]!.attributes["error.type"], "boom");
  assert.equal(decoded[1]!.parentSpanId.length, 16);
  assert.equal(decoded[0]!.service, "spec");
});

test("a queue that is full drops the newest; a collector down or refusing drops its batch; counts only", async (t) => {
  const down = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}` }, "x"), { ...LIMITS, maxBatch: 100 });
  spans(down, 6);
  assert.equal(down.exporter!.dropped, 2, "the queue holds 4");
  await down.exporter!.flush();
  assert.equal(down.exporter!.dropped, 6);

  const refusing = createServer((req, res) => req.resume().on("end", () => res.writeHead(503).end()));
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  t.after(() => refusing.close());
  const port = (refusing.address() as { port: number }).port;
  const refused = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces` }, "x"), { ...LIMITS, delayMs: 1 });
  spans(refused, 1);
  await refused.exporter!.flush();
  assert.equal(refused.exporter!.dropped, 1);
  assert.equal(refused.exporter!.exported, 0);
});

test("unsampled spans are published but not exported; a tracer with a subscriber is active", async (t) => {
  const collector = await startCollector(t);
  const tracer = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: "always_off" }, "x"), LIMITS);
  const seen: SpanRecord[] = [];
  const onSpan = (span: unknown): void => void seen.push(span as SpanRecord);
  subscribe(SPAN_CHANNEL, onSpan);
  t.after(() => unsubscribe(SPAN_CHANNEL, onSpan));
  assert.equal(new Tracer(null).active, true);
  const span = tracer.start("x", SpanKind.server, tracer.context(null), {});
  span.set("k", "v");
  span.set("skipped", undefined);
  span.end();
  span.end();
  await tracer.exporter!.flush();
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0]!.attributes, { k: "v" });
  assert.equal(seen[0]!.sampled, false);
  assert.equal(collector.bodies.length, 0);
});

test("a collector named by an IPv6 literal gets its spans", async (t) => {
  const bodies: string[] = [];
  const collector = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      bodies.push(body);
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "::1", resolve));
  t.after(() => new Promise<void>((resolve) => collector.close(() => resolve())));
  const port = (collector.address() as { port: number }).port;
  const tracer = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://[::1]:${port}` }, "v6"), { ...LIMITS, maxBatch: 100 });
  spans(tracer, 3);
  await tracer.exporter!.flush();
  assert.equal(tracer.exporter!.exported, 3);
  assert.equal((await decodeSpans(bodies)).length, 3);
});

test("spans that end while an export is still being written never land in its buffers", async (t) => {
  // The collector reads the first export only once the test has queued the next spans: a body
  // of ten megabytes is then still being written, so buffers given back too early would be
  // refilled under it. Read as JSON here (the official decoder is for the encoding, above).
  const bodies: string[] = [];
  let arrived!: () => void;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const collector = createServer((req, res) => {
    req.pause();
    if (bodies.length === 0) arrived();
    void resumed.then(() => {
      let body = "";
      req.setEncoding("utf8").on("data", (c: string) => (body += c));
      req.on("end", () => {
        bodies.push(body);
        res.end("{}");
      });
      req.resume();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => collector.close(() => resolve())));
  const port = (collector.address() as { port: number }).port;
  const SPANS = 2000;
  const tracer = new Tracer(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, "x"), {
    maxQueue: 2 * SPANS,
    maxQueueBytes: 64 * 1024 * 1024,
    maxBatch: SPANS,
    delayMs: 60_000,
    timeoutMs: 60_000,
  });
  const batch = (tag: string): void => {
    for (let i = 0; i < SPANS; i++) tracer.start(`${tag} ${i}`, SpanKind.internal, tracer.context(null), { pad: tag.repeat(5000) }).end();
  };
  batch("a");
  await first;
  batch("b");
  resume();
  await tracer.exporter!.flush();
  assert.equal(tracer.exporter!.exported, 2 * SPANS);
  type Body = { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { value: { stringValue: string } }[] }[] }[] }[] };
  const spans = bodies.flatMap((b) => (JSON.parse(b) as Body).resourceSpans[0]!.scopeSpans[0]!.spans);
  const wrong = spans.filter((s, i) => s.name !== `${i < SPANS ? "a" : "b"} ${i % SPANS}` || s.attributes[0]!.value.stringValue !== s.name[0]!.repeat(5000));
  assert.equal(spans.length, 2 * SPANS);
  assert.equal(wrong.length, 0);
});
