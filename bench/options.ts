// Command-line settings of `npm run bench`. `--quick` shortens every phase; the targets
// and the load shape (connections, threads) stay the same.
import { parseArgs } from "node:util";
import type { LoadSettings } from "./load.ts";
import type { Slicing } from "./rows/throughput.ts";

export interface BenchOptions {
  quick: boolean;
  load: LoadSettings;
  slicing: Slicing;
  /** Requests per scenario when measuring allocation. */
  allocRequests: number;
  /** tools/call requests before the memory row reads RSS. */
  calls: number;
  /** Sessions opened and left idle. */
  sessions: number;
  /** Sessions opened through the gateway and left idle. */
  gatewaySessions: number;
  sseClients: number;
  /** Measured broadcasts (one more warms up). */
  broadcasts: number;
  /** Directory for CPU profiles of the hubmcp server child, when profiling. */
  cpuProfDir: string | null;
  /** Node flags for every server under test (both baseline and hubmcp). */
  serverFlags: string[];
  /** Where results.json goes. */
  out: string;
  /** Run only the phases whose names contain one of these (all when empty); for iterating on one row. */
  only: string[];
}

export const USAGE = `usage: npm run bench -- [--quick] [--connections N] [--duration S]
                       [--calls N] [--sessions N] [--sse-clients N] [--cpu-prof DIR]
                       [--server-flags="--max-semi-space-size=4"] [--out FILE]
                       [--only "gateway hop,idle sessions"]`;

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: "boolean", default: false },
      connections: { type: "string" },
      duration: { type: "string" },
      calls: { type: "string" },
      sessions: { type: "string" },
      "sse-clients": { type: "string" },
      "cpu-prof": { type: "string" },
      "server-flags": { type: "string" },
      out: { type: "string" },
      only: { type: "string" },
    },
  });
  const quick = values.quick === true;
  const durationMs = positive("duration", values.duration, quick ? 2 : 8) * 1000;
  const warmupMs = quick ? 500 : 1500;
  return {
    quick,
    load: {
      connections: Math.round(positive("connections", values.connections, 50)),
    },
    slicing: { durationMs, sliceMs: Math.min(durationMs, quick ? 500 : 1000), warmupMs },
    allocRequests: quick ? 10_000 : 20_000,
    calls: Math.round(positive("calls", values.calls, quick ? 30_000 : 100_000)),
    sessions: Math.round(positive("sessions", values.sessions, 10_000)),
    gatewaySessions: 1000,
    sseClients: Math.round(positive("sse-clients", values["sse-clients"], 1000)),
    broadcasts: quick ? 15 : 40,
    cpuProfDir: values["cpu-prof"] ?? null,
    serverFlags: (values["server-flags"] ?? "").split(/\s+/).filter(Boolean),
    out: values.out ?? new URL("./results.json", import.meta.url).pathname,
    only: (values.only ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
