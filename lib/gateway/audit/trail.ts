// The audit trail's writer: lines queue in memory (bounded) and one writer drains them in
// batches, so a request never waits for the disk; a slow or full disk costs dropped lines,
// counted for /metrics, never memory growth or a failed request.
import type { Writable } from "node:stream";
import { auditLine, type AuditEntry } from "./entry.ts";
import { AuditFiles } from "./files.ts";
import type { AuditSettings } from "../config/audit-settings.ts";

export interface AuditTrailOptions {
  /** The `stdout` sink's stream; process.stdout by default. */
  stdout?: Writable;
  /** Told once per failure streak: the sink failed (its code only). */
  onError?: (code: string) => void;
}

export class AuditTrail {
  readonly #settings: AuditSettings;
  readonly #options: AuditTrailOptions;
  readonly #files: AuditFiles | undefined;
  #queue: string[] = [];
  #draining: Promise<void> | undefined;
  #dropped = 0;
  #written = 0;
  #failing = false;

  constructor(settings: AuditSettings, options: AuditTrailOptions = {}) {
    this.#settings = settings;
    this.#options = options;
    if (settings.sink === "file") this.#files = new AuditFiles(settings.dir!, settings.maxFileBytes, settings.keepFiles);
    // A closed stdout (EPIPE) reaches each write's callback, where it is counted; unheard, it would end the process.
    if (settings.sink === "stdout") (options.stdout ?? process.stdout).on("error", () => undefined);
  }

  /** Whether lines are kept at all: callers skip the work of building an entry when not. */
  get active(): boolean {
    return this.#settings.sink !== "off";
  }

  /** Lines lost so far: the queue was full or the sink failed. */
  get dropped(): number {
    return this.#dropped;
  }

  get written(): number {
    return this.#written;
  }

  record(entry: AuditEntry): void {
    if (!this.active) return;
    if (this.#queue.length >= this.#settings.queueLines) {
      this.#dropped++;
      return;
    }
    this.#queue.push(auditLine(entry));
    this.#draining ??= this.#drain();
  }

  /** Resolves once every line queued so far is written (or dropped). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.#files?.close();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        try {
          await this.#write(batch);
          this.#written += batch.length;
          this.#failing = false;
        } catch (err) {
          this.#dropped += batch.length;
          if (!this.#failing) this.#options.onError?.(String((err as NodeJS.ErrnoException).code ?? "EIO"));
          this.#failing = true;
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  #write(lines: string[]): Promise<void> {
    if (this.#files) return this.#files.append(lines);
    const out = this.#options.stdout ?? process.stdout;
    return new Promise((done, fail) => out.write(lines.join(""), (err) => (err ? fail(err) : done())));
  }
}
