// Spans to an OTLP/HTTP collector, batched in the background. A request never waits on it:
// `add` only queues. The queue is bounded and one export is in flight at a time, so a collector
// that is slow or down costs dropped spans (counted), never memory or an error to a client.
import { Agent, request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { exportFrame, spanBound, writeSpan } from "./otlp.ts";
import type { SpanRecord } from "./span.ts";
import { SpanParts, type TakenSpans } from "./span-parts.ts";
import { requestHostname } from "../util/url-host.ts";
import type { TracingConfig } from "./config.ts";

export interface ExporterLimits {
  /** Spans held at most; more are dropped (the newest: what is queued is already paid for). */
  maxQueue: number;
  /** Bytes of encoded spans held at most (a span's attributes may be long). */
  maxQueueBytes?: number;
  /** Spans per export request. */
  maxBatch: number;
  /** How long a span may wait for a batch to fill, in ms. */
  delayMs: number;
  /** One export request's time limit, in ms. */
  timeoutMs: number;
}

/** Four megabytes: about six thousand spans of the gateway's, twice what maxQueue holds. */
const MAX_QUEUE_BYTES = 4 * 1024 * 1024;
export const EXPORTER_LIMITS: ExporterLimits = { maxQueue: 2048, maxQueueBytes: MAX_QUEUE_BYTES, maxBatch: 512, delayMs: 1000, timeoutMs: 10_000 };
/** A batch is whole parts of this many spans (./span-parts.ts). */
const SPANS_PER_PART = 16;

export class BatchExporter {
  readonly #config: TracingConfig & { endpoint: URL };
  readonly #limits: ExporterLimits;
  readonly #queue: SpanParts;
  readonly #frame: { head: Buffer; tail: Buffer };
  /** One connection kept to the collector (an idle one does not hold the process open). */
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | null = null;
  /** Spans dropped: queue full, or the collector refused or could not be reached. */
  dropped = 0;
  /** Spans the collector accepted. */
  exported = 0;

  constructor(config: TracingConfig & { endpoint: URL }, limits: ExporterLimits = EXPORTER_LIMITS) {
    this.#config = config;
    this.#limits = limits;
    this.#queue = new SpanParts({
      spansPerPart: Math.min(SPANS_PER_PART, limits.maxBatch),
      maxSpans: limits.maxQueue,
      maxBytes: limits.maxQueueBytes ?? MAX_QUEUE_BYTES,
    });
    this.#frame = exportFrame(config.resource);
  }

  /** Queues a finished span, encoded now: it is held as bytes, not objects, until it goes. */
  add(span: SpanRecord): void {
    if (!this.#queue.add(span, spanBound(span), writeSpan)) {
      this.dropped++;
      return;
    }
    this.#schedule();
  }

  /** A full batch goes now; a partial one when its first span has waited `delayMs`. */
  #schedule(): void {
    if (this.#queue.size >= this.#limits.maxBatch) this.#kick();
    else if (this.#queue.size > 0 && !this.#timer) {
      this.#timer = setTimeout(() => this.#kick(), this.#limits.delayMs);
      this.#timer.unref();
    }
  }

  /** Sends what is queued now; resolves when the queue has been handed over (or dropped). */
  async flush(): Promise<void> {
    while (this.#sending || this.#queue.size > 0) {
      if (this.#sending) await this.#sending;
      else this.#kick();
    }
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sending) return;
    const batch = this.#queue.take(this.#limits.maxBatch);
    if (!batch) return;
    this.#sending = this.#send(batch)
      .then((ok) => {
        if (ok) this.exported += batch.spans;
        else this.dropped += batch.spans;
      })
      .finally(() => {
        this.#sending = null;
        this.#schedule();
      });
  }

  #send(batch: TakenSpans): Promise<boolean> {
    const url = this.#config.endpoint;
    const body = [this.#frame.head, ...batch.chunks, this.#frame.tail];
    let length = 0;
    for (const chunk of body) length += chunk.length;
    const https = url.protocol === "https:";
    const headers: string[] = [];
    for (const name in this.#config.headers) headers.push(name, this.#config.headers[name]!);
    headers.push("content-type", "application/json", "content-length", String(length), "host", url.host);
    return new Promise((resolve) => {
      // Options of the shape every request the gateway forwards has (../proxy/forwarder.ts), on a
      // keep-alive agent of its own: node's HTTP client sees one kind of call in a gateway.
      const req = (https ? httpsRequest : httpRequest)({
        agent: https ? undefined : this.#agent,
        hostname: requestHostname(url),
        port: url.port || (https ? 443 : 80),
        method: "POST",
        path: url.pathname + url.search,
        headers: headers as unknown as OutgoingHttpHeaders,
      });
      const timer = setTimeout(() => req.destroy(), this.#limits.timeoutMs);
      timer.unref();
      req.on("close", () => clearTimeout(timer));
      // The buffers are reused only once the socket has taken every byte; after an error they are left to the collector of garbage.
      req.on("finish", () => batch.release());
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve((res.statusCode ?? 500) < 300));
        res.on("error", () => resolve(false));
      });
      // The collector's address or an error's text never reaches a client or the log: a count is the whole story.
      req.on("error", () => resolve(false));
      // One write for the whole body, as one buffer would have been.
      req.cork();
      for (const chunk of body) req.write(chunk);
      req.end();
    });
  }
}
