// The process a server under test runs in, so it never shares an event loop (or a core)
// with the load generator. Talks to ./child.ts over IPC: reports its port, then answers
// stats requests with its own RSS and CPU time.
import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import type { BenchServer, ServerKind } from "./servers/types.ts";

export type ChildRequest = { type: "stats"; gc: boolean } | { type: "stop" } | { type: "tracing"; on: boolean };
export type ChildMessage =
  | { type: "listening"; port: number }
  | { type: "tracing"; on: boolean }
  | {
      type: "stats";
      rssBytes: number;
      /** The most RSS the process has held so far (getrusage's maxrss). */
      peakRssBytes: number;
      heapUsedBytes: number;
      heapTotalBytes: number;
      newSpaceBytes: number;
      externalBytes: number;
      cpuMs: number;
      /** The part of cpuMs spent in the kernel. */
      systemMs: number;
      scavenges: number;
      fullGcs: number;
      gcMs: number;
      minorPageFaults: number;
      sessions: number | null;
    };

type Starter = (args: readonly string[]) => Promise<BenchServer>;

/**
 * `args`: what the kind needs beyond its name (the gateway and the proxy: see their files).
 * Each child loads only its own kind: the memory rows must not count the gateway's code in
 * the bare baseline or in the tool server.
 */
const starters: Record<ServerKind, () => Promise<Starter>> = {
  baseline: async () => (await import("./servers/baseline.ts")).startBaseline,
  hubmcp: async () => (await import("./servers/hubmcp.ts")).startHubmcp,
  gateway: async () => (await import("./servers/gateway.ts")).startGatewayServer,
  proxy: async () => (await import("./servers/proxy.ts")).startProxy,
  "raw-relay": async () => (await import("./servers/raw-relay.ts")).startRawRelay,
};

function send(message: ChildMessage): void {
  process.send?.(message);
}

async function main(kind: ServerKind, args: readonly string[]): Promise<void> {
  // With a fixed young generation, each scavenge stands for one semi-space of allocation.
  let scavenges = 0;
  let fullGcs = 0;
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
    }
  }).observe({ entryTypes: ["gc"] });
  const server = await (await starters[kind]())(args);
  process.on("message", (request: ChildRequest) => {
    if (request.type === "stop") {
      // process.exit still writes a --cpu-prof profile; a stray timer must not keep us alive.
      void server.close().then(() => process.exit(0));
      return;
    }
    if (request.type === "tracing") {
      if (!server.setTracing) throw new Error("this bench server cannot turn its tracing on and off");
      // Turned off, it answers once what was queued has been exported: that work is the on slice's.
      void Promise.resolve(server.setTracing(request.on)).then(() => send({ type: "tracing", on: request.on }));
      return;
    }
    // Full collection first, so "RSS" means what is still held rather than what awaits GC.
    if (request.gc) globalThis.gc?.();
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    const cpuMs = (cpu.user + cpu.system) / 1000;
    send({
      type: "stats",
      rssBytes: mem.rss,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      heapUsedBytes: mem.heapUsed,
      heapTotalBytes: mem.heapTotal,
      // V8's young generation grows with the allocation rate; it is most of a busy server's RSS growth.
      newSpaceBytes: getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0,
      externalBytes: mem.external,
      cpuMs,
      systemMs: cpu.system / 1000,
      scavenges,
      fullGcs,
      gcMs,
      minorPageFaults: process.resourceUsage().minorPageFault,
      sessions: server.sessions(),
    });
  });
  send({ type: "listening", port: server.port });
}

const kind = process.argv[2];
if (kind !== "baseline" && kind !== "hubmcp" && kind !== "gateway" && kind !== "proxy" && kind !== "raw-relay") throw new Error(`unknown server kind: ${kind}`);
await main(kind, process.argv.slice(3));
