// What tracing itself costs the gateway per call, measured in the bench's own process on CPU
// time: the traced path's steps (read the body, continue the trace, put it into the body, the
// span, its share of an OTLP export body) against the untraced path's (what the twin gateway
// does), the best of several repetitions. The hop rows measure whole processes over loopback,
// where another program's burst on a shared machine moves a figure by more than tracing costs;
// this shows how much of a traced row's difference is tracing's own work.
import { continueTrace, gatewaySpan } from "../../lib/gateway/relay/trace.ts";
import { inspectRequest, mayActOn, passedOn } from "../../lib/gateway/relay/rewrite.ts";
import { EXPORTER_LIMITS } from "../../lib/telemetry/exporter.ts";
import { spanBound, writeSpan } from "../../lib/telemetry/otlp.ts";
import { SpanParts } from "../../lib/telemetry/span-parts.ts";
import { Tracer } from "../../lib/telemetry/tracer.ts";
import { CALL_ADD, PROTOCOL_VERSION } from "../requests.ts";

const BODY = Buffer.from(CALL_ADD);
const HEADERS = {
  host: "127.0.0.1",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: "Bearer x",
  "mcp-session-id": "s",
  "mcp-protocol-version": PROTOCOL_VERSION,
};
const REPEATS = 5;

/** Best CPU µs per call of `calls` runs of `step`, over REPEATS. */
function cpuUs(calls: number, step: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < REPEATS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) step();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / calls);
  }
  return best;
}

export interface TracingWork {
  /** The untraced path's steps, µs per call. */
  untracedUs: number;
  /** The traced path's, span and export encoding included. */
  tracedUs: number;
}

export function tracingWork(calls: number): TracingWork {
  // No exporter: each span is encoded and queued here as the exporter does, and taken in export-sized batches.
  const off = new Tracer(null);
  const on = new Tracer({ endpoint: null, headers: {}, resource: { "service.name": "hub_gateway" }, sampler: () => true });
  const queue = new SpanParts({ spansPerPart: 16, maxSpans: EXPORTER_LIMITS.maxQueue, maxBytes: EXPORTER_LIMITS.maxQueueBytes ?? Number.POSITIVE_INFINITY });
  let sink = 0;
  const untraced = (): void => {
    const msg = mayActOn(BODY, "application/json") ? inspectRequest(BODY, "/p/") : passedOn(BODY);
    sink += continueTrace(off, HEADERS, msg!).body.length;
  };
  const traced = (): void => {
    const msg = inspectRequest(BODY, "/p/", true)!;
    const forwarded = continueTrace(on, HEADERS, msg);
    const span = gatewaySpan(on, forwarded.trace, msg);
    span.set("mcp.session.id", "0123456789abcdef0123456789abcdef");
    span.end();
    queue.add(span.record, spanBound(span.record), writeSpan);
    if (queue.size >= EXPORTER_LIMITS.maxBatch) {
      const batch = queue.take(EXPORTER_LIMITS.maxBatch)!;
      sink += batch.spans;
      batch.release();
    }
    sink += forwarded.body.length;
  };
  // Once through both before measuring, so the two are compiled alike.
  cpuUs(calls, untraced);
  cpuUs(calls, traced);
  const work = { untracedUs: cpuUs(calls, untraced), tracedUs: cpuUs(calls, traced) };
  if (sink < 0) throw new Error("unreachable: keeps the work from being optimised away");
  return work;
}
