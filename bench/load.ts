// The load generator: node:http keep-alive agents spread over worker threads, so the
// generator never shares an event loop with the runner (or with the server, which runs in
// its own process). Every row uses one generator with the same settings.
import { Worker } from "node:worker_threads";
import type { WorkerJob, WorkerReport } from "./load-worker.ts";

export interface Target {
  port: number;
  path: string;
  body: string;
  headers?: Record<string, string>;
}

export interface LoadSettings {
  connections: number;
  /** Generator threads (at most one per connection). */
  workers: number;
}

export interface LoadResult {
  /** Measured requests (after the warm-up). */
  requests: number;
  /** Every completed request, warm-up included. */
  total: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  elapsedMs: number;
  /** Measured latencies in ms, sorted. */
  latencies: Float64Array;
}

/** What to run: for a time (after a warm-up that is not measured), or a fixed count. */
export type LoadPlan = { durationMs: number; warmupMs: number } | { requests: number };

// Worker threads do not inherit tsx's loader hooks on Node 20, so each one registers them
// before importing the (TypeScript) worker module.
const TSX_API = import.meta.resolve("tsx/esm/api");
const WORKER = new URL("./load-worker.ts", import.meta.url).href;
const BOOT = `import(${JSON.stringify(TSX_API)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER)}); })`;

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Splits n as evenly as possible into k parts. */
function split(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
}

function concat(arrays: Float64Array[]): Float64Array {
  const all = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    all.set(a, at);
    at += a.length;
  }
  return all.sort();
}

function result(latencies: Float64Array, total: number, errors: number, elapsedMs: number): LoadResult {
  const requests = latencies.length;
  return {
    requests,
    total,
    errors,
    rps: elapsedMs > 0 ? (requests * 1000) / elapsedMs : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    elapsedMs,
    latencies,
  };
}

function fromReports(reports: WorkerReport[]): LoadResult {
  const measured = reports.filter((r) => r.count > 0);
  const first = Math.min(...measured.map((r) => r.firstStart));
  const last = Math.max(...measured.map((r) => r.lastEnd));
  const sum = (f: (r: WorkerReport) => number): number => reports.reduce((n, r) => n + f(r), 0);
  return result(concat(reports.map((r) => r.latencies)), sum((r) => r.total), sum((r) => r.errors), measured.length ? last - first : 0);
}

/** Several runs of one target as if they were one: latencies pooled, time summed. */
export function combine(runs: LoadResult[]): LoadResult {
  const sum = (f: (r: LoadResult) => number): number => runs.reduce((n, r) => n + f(r), 0);
  return result(concat(runs.map((r) => r.latencies)), sum((r) => r.total), sum((r) => r.errors), sum((r) => r.elapsedMs));
}

function boot(): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOT, { eval: true });
    worker.once("message", () => resolve(worker));
    worker.once("error", reject);
  });
}

function ask(worker: Worker, job: WorkerJob): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    worker.once("error", onError);
    worker.once("message", (report: WorkerReport) => {
      worker.off("error", onError);
      resolve(report);
    });
    worker.postMessage(job);
  });
}

export class LoadGenerator {
  readonly settings: LoadSettings;
  readonly #workers: Worker[];

  private constructor(settings: LoadSettings, workers: Worker[]) {
    this.settings = settings;
    this.#workers = workers;
  }

  /** Boots the threads (at most one per connection). */
  static async start(settings: LoadSettings): Promise<LoadGenerator> {
    const threads = Math.max(1, Math.min(settings.workers, settings.connections));
    return new LoadGenerator(settings, await Promise.all(Array.from({ length: threads }, boot)));
  }

  run(target: Target, plan: LoadPlan): Promise<LoadResult> {
    const n = this.#workers.length;
    const connections = split(this.settings.connections, n);
    const counts = "requests" in plan ? split(plan.requests, n) : null;
    const now = Date.now();
    const warmupUntil = "requests" in plan ? 0 : now + plan.warmupMs;
    const deadline = "requests" in plan ? null : warmupUntil + plan.durationMs;
    const jobs = this.#workers.map((worker, i) =>
      ask(worker, {
        host: "127.0.0.1",
        port: target.port,
        path: target.path,
        headers: target.headers ?? {},
        body: target.body,
        connections: connections[i]!,
        warmupUntil,
        deadline,
        requests: counts === null ? null : counts[i]!,
      }),
    );
    return Promise.all(jobs).then(fromReports);
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }
}
