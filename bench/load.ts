// The load generator: autocannon (an independent HTTP benchmarking client with its own
// request writer and response parser) on the runner's thread, while every server under
// test runs in its own process. Latencies are taken from its per-response events at
// sub-millisecond resolution; its own histogram rounds to whole milliseconds. The CPU
// time the generator spends is measured too, so a run can show it outpaces a bare server.
import autocannon from "autocannon";
import { performance } from "node:perf_hooks";

export interface Target {
  port: number;
  path: string;
  body: string;
  headers?: Record<string, string>;
}

export interface LoadSettings {
  /** Keep-alive connections, each with one request in flight (MCP clients do not pipeline). */
  connections: number;
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
  /** CPU time of the generator's process over the whole run, warm-up included. */
  generatorCpuMs: number;
  /** Measured latencies in ms, sorted. */
  latencies: Float64Array;
}

/**
 * What to run: for a time (after a warm-up that is not measured), or a fixed count. A steady
 * rate is ./paced-load.ts's: autocannon spends a rate as each second's share in a burst.
 */
export type LoadPlan = { durationMs: number; warmupMs: number } | { requests: number };

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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

function result(latencies: Float64Array, total: number, errors: number, elapsedMs: number, generatorCpuMs: number): LoadResult {
  const requests = latencies.length;
  return {
    requests,
    total,
    errors,
    rps: elapsedMs > 0 ? (requests * 1000) / elapsedMs : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    elapsedMs,
    generatorCpuMs,
    latencies,
  };
}

/** Several runs of one target as if they were one: latencies pooled, time summed. */
export function combine(runs: LoadResult[]): LoadResult {
  const sum = (f: (r: LoadResult) => number): number => runs.reduce((n, r) => n + f(r), 0);
  return result(
    concat(runs.map((r) => r.latencies)),
    sum((r) => r.total),
    sum((r) => r.errors),
    sum((r) => r.elapsedMs),
    sum((r) => r.generatorCpuMs),
  );
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export class LoadGenerator {
  readonly settings: LoadSettings;

  private constructor(settings: LoadSettings) {
    this.settings = settings;
  }

  static async start(settings: LoadSettings): Promise<LoadGenerator> {
    return new LoadGenerator(settings);
  }

  run(target: Target, plan: LoadPlan): Promise<LoadResult> {
    const counted = "requests" in plan;
    const t0 = performance.now();
    const warmupUntil = counted ? t0 : t0 + plan.warmupMs;
    const deadline = counted ? Infinity : warmupUntil + plan.durationMs;
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    let total = 0;
    let errors = 0;
    let firstStart = Infinity;
    let lastEnd = 0;
    const cpu0 = cpuMs();
    return new Promise((resolve, reject) => {
      const instance = autocannon(
        {
          url: `http://127.0.0.1:${target.port}${target.path}`,
          method: "POST",
          headers: { ...target.headers, "content-type": "application/json" },
          body: target.body,
          connections: this.settings.connections,
          pipelining: 1,
          // Stopped by the deadline below; a short sample interval ends the run promptly after.
          ...(counted ? { amount: plan.requests } : { duration: (plan.warmupMs + plan.durationMs) / 1000 + 5 }),
          sampleInt: 50,
          timeout: 10,
        },
        (err) => {
          if (err) return reject(err);
          const elapsed = Number.isFinite(firstStart) ? lastEnd - firstStart : 0;
          resolve(result(latencies.slice(0, count).sort(), total, errors, elapsed, cpuMs() - cpu0));
        },
      );
      let stopped = false;
      instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        const end = performance.now();
        total++;
        const start = end - ms;
        if (end > deadline) {
          if (!stopped) instance.stop();
          stopped = true;
          return;
        }
        if (start < warmupUntil) return;
        if (status !== 200) errors++;
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = ms;
        if (start < firstStart) firstStart = start;
        lastEnd = end;
      });
      instance.on("reqError", () => {
        total++;
        if (performance.now() >= warmupUntil) errors++;
      });
    });
  }

  async close(): Promise<void> {}
}
