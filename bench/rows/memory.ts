// Memory rows. Node's RSS follows V8's young generation, which grows with the allocation
// rate and is not handed back promptly, so every hubmcp figure sits next to the bare
// node:http baseline put through the same requests, and the live heap (what is really
// retained) is shown too.
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerChild, Servers, Stats } from "../child.ts";
import type { LoadGenerator, LoadResult, Target } from "../load.ts";
import { expectSum, probe, targets } from "../requests.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";

const mb = (n: number): string => n.toFixed(0);
/** Quiet time before the settled reading: keep-alive sockets close, timers run. */
const SETTLE_MS = 1000;

interface Trace {
  start: Stats;
  after: Stats;
  settled: Stats;
  load: LoadResult;
}

async function trace(server: ServerChild, run: () => Promise<LoadResult>): Promise<Trace> {
  const start = await server.stats(true);
  const load = await run();
  const after = await server.stats();
  await sleep(SETTLE_MS);
  return { start, after, settled: await server.stats(true), load };
}

async function withServer<T>(servers: Servers, kind: "baseline" | "hubmcp", fn: (server: ServerChild) => Promise<T>): Promise<T> {
  const server = await servers.start(kind);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

const heapHeld = (t: Trace): string => `${mb(t.settled.heapTotalMb)} MB, young generation ${mb(t.settled.newSpaceMb)} MB`;
const path = (t: Trace): string => `${mb(t.start.rssMb)} → ${mb(t.after.rssMb)} → ${mb(t.settled.rssMb)} MB`;

function failed(row: Row, load: LoadResult): Row {
  if (load.errors > 0) row.checks.push({ target: "no failed requests", measured: `${load.errors} failed`, pass: false });
  return row;
}

export async function callMemoryRow(servers: Servers, gen: LoadGenerator, calls: number): Promise<Row> {
  const calling = (target: (port: number) => Target) => (server: ServerChild) =>
    probe(target(server.port), expectSum.rpc).then(() => trace(server, () => gen.run(target(server.port), { requests: calls })));
  const base = await withServer(servers, "baseline", calling(targets.callAdd));
  const hub = await withServer(servers, "hubmcp", calling(targets.callAdd));
  const heapGrowth = hub.settled.heapUsedMb - hub.start.heapUsedMb;
  return failed(
    {
      name: `RSS over ${calls.toLocaleString("en-US")} tools/call`,
      rps: hub.load.rps,
      p50Ms: hub.load.p50Ms,
      p99Ms: hub.load.p99Ms,
      rssMb: hub.after.rssMb,
      result: `${path(hub)} (baseline ${path(base)})`,
      note:
        `RSS at start → after the calls → ${SETTLE_MS / 1000} s after the load stopped (start and settled after a full GC); ` +
        `live heap ${hub.start.heapUsedMb.toFixed(1)} → ${hub.settled.heapUsedMb.toFixed(1)} MB, ` +
        `V8 heap held ${heapHeld(hub)} (baseline ${heapHeld(base)})`,
      checks: [
        atMost("RSS after", { value: hub.after.rssMb, digits: 0, unit: " MB" }, TARGETS.rssAfterMb),
        atMost("back near start: live heap settled − start", { value: heapGrowth, digits: 1, unit: " MB" }, TARGETS.liveHeapSettleMb),
      ],
    },
    hub.load,
  );
}

export async function idleSessionsRow(servers: Servers, gen: LoadGenerator, sessions: number): Promise<Row> {
  // Every initialize without a session header mints a session; the baseline answers the
  // same requests and keeps nothing, which shows what the request burst alone costs.
  const opening = (server: ServerChild): Promise<Trace> => trace(server, () => gen.run(targets.initialize(server.port), { requests: sessions }));
  const base = await withServer(servers, "baseline", opening);
  const hub = await withServer(servers, "hubmcp", opening);
  const growth = hub.settled.rssMb - hub.start.rssMb;
  const baseGrowth = base.settled.rssMb - base.start.rssMb;
  const perSession = ((hub.settled.heapUsedMb - hub.start.heapUsedMb) * 1024 * 1024) / sessions;
  const row: Row = {
    name: `${sessions.toLocaleString("en-US")} idle sessions`,
    rps: hub.load.rps,
    p50Ms: hub.load.p50Ms,
    p99Ms: hub.load.p99Ms,
    rssMb: hub.settled.rssMb,
    result: `+${mb(growth)} MB RSS (baseline +${mb(baseGrowth)} MB for the same requests)`,
    note:
      `RSS after a full GC, before and after opening the sessions; live heap ${Math.round(perSession)} B per session; ` +
      `V8 heap held ${heapHeld(hub)} (baseline ${heapHeld(base)}); req/s is the initialize rate`,
    checks: [atMost("RSS growth", { value: growth, digits: 0, unit: " MB" }, TARGETS.idleSessionsMb)],
  };
  const held = hub.settled.sessions;
  if (held !== sessions) row.checks.push({ target: `${sessions} sessions held`, measured: `${held}`, pass: false });
  return failed(row, hub.load);
}
