// Spans to an OTLP/HTTP collector, batched in the background. A request never waits on it:
// `add` only queues. The queue is bounded and one export is in flight at a time, so a collector
// that is slow or down costs dropped spans (counted), never memory or an error to a client.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { exportRequest } from "./otlp.ts";
import type { SpanRecord } from "./span.ts";
import type { TracingConfig } from "./config.ts";

export interface ExporterLimits {
  /** Spans held at most; more are dropped (the newest: what is queued is already paid for). */
  maxQueue: number;
  /** Spans per export request. */
  maxBatch: number;
  /** How long a span may wait for a batch to fill, in ms. */
  delayMs: number;
  /** One export request's time limit, in ms. */
  timeoutMs: number;
}

export const EXPORTER_LIMITS: ExporterLimits = { maxQueue: 2048, maxBatch: 512, delayMs: 1000, timeoutMs: 10_000 };

export class BatchExporter {
  readonly #config: TracingConfig & { endpoint: URL };
  readonly #limits: ExporterLimits;
  #queue: SpanRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | null = null;
  /** Spans dropped: queue full, or the collector refused or could not be reached. */
  dropped = 0;
  /** Spans the collector accepted. */
  exported = 0;

  constructor(config: TracingConfig & { endpoint: URL }, limits: ExporterLimits = EXPORTER_LIMITS) {
    this.#config = config;
    this.#limits = limits;
  }

  add(span: SpanRecord): void {
    if (this.#queue.length >= this.#limits.maxQueue) {
      this.dropped++;
      return;
    }
    this.#queue.push(span);
    this.#schedule();
  }

  /** A full batch goes now; a partial one when its first span has waited `delayMs`. */
  #schedule(): void {
    if (this.#queue.length >= this.#limits.maxBatch) this.#kick();
    else if (this.#queue.length > 0 && !this.#timer) {
      this.#timer = setTimeout(() => this.#kick(), this.#limits.delayMs);
      this.#timer.unref();
    }
  }

  /** Sends what is queued now; resolves when the queue has been handed over (or dropped). */
  async flush(): Promise<void> {
    while (this.#sending || this.#queue.length > 0) {
      if (this.#sending) await this.#sending;
      else this.#kick();
    }
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sending || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#limits.maxBatch);
    this.#sending = this.#send(batch)
      .then((ok) => {
        if (ok) this.exported += batch.length;
        else this.dropped += batch.length;
      })
      .finally(() => {
        this.#sending = null;
        this.#schedule();
      });
  }

  #send(batch: SpanRecord[]): Promise<boolean> {
    const url = this.#config.endpoint;
    // Encoded once: a string body would be measured for its length and then encoded again.
    const body = Buffer.from(exportRequest(this.#config.resource, batch));
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = request(url, {
        method: "POST",
        headers: { ...this.#config.headers, "content-type": "application/json", "content-length": body.length },
        timeout: this.#limits.timeoutMs,
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve((res.statusCode ?? 500) < 300));
        res.on("error", () => resolve(false));
      });
      req.on("timeout", () => req.destroy());
      // The collector's address or an error's text never reaches a client or the log: a count is the whole story.
      req.on("error", () => resolve(false));
      req.end(body);
    });
  }
}
