// Request rows: the bare node:http baseline and hubmcp's three ways to call a tool. Both
// servers run at once in their own processes and the generator takes turns between them in
// short slices, so noise from other work on the machine falls on every row alike.
import type { ServerChild, Servers } from "../child.ts";
import { combine, type LoadGenerator, type LoadResult, type Target } from "../load.ts";
import { expectSum, openSession, probe, targets } from "../requests.ts";
import type { Row } from "../row.ts";
import { TARGETS, throughputChecks } from "../targets.ts";

export interface Slicing {
  /** Measured time per row, in slices of sliceMs. */
  durationMs: number;
  sliceMs: number;
  /** Unmeasured run of each row before the first slice (JIT, connection set-up). */
  warmupMs: number;
}

/** Connections re-open at the start of each slice; that part is not measured. */
const SLICE_WARMUP_MS = 150;

interface Lane {
  name: string;
  server: ServerChild;
  target: Target;
  expect: (body: unknown) => boolean;
  /** Least req/s as a share of the baseline's; null for the baseline itself. */
  minRatio: number | null;
  runs: LoadResult[];
  cpuMs: number;
}

function lanes(base: ServerChild, hub: ServerChild, sessionId: string): Lane[] {
  const lane = (name: string, server: ServerChild, target: Target, expect: Lane["expect"], minRatio: number | null): Lane => ({
    name, server, target, expect, minRatio, runs: [], cpuMs: 0,
  });
  return [
    lane("baseline: bare node:http", base, targets.callAdd(base.port), expectSum.rpc, null),
    lane("POST /mcp tools/call, no session", hub, targets.callAdd(hub.port), expectSum.rpc, TARGETS.rpcRatio),
    lane("POST /mcp tools/call, in session", hub, targets.sessionCallAdd(hub.port, sessionId), expectSum.rpc, TARGETS.rpcRatio),
    lane("POST /tools/add (REST)", hub, targets.restAdd(hub.port), expectSum.rest, TARGETS.restRatio),
  ];
}

async function slice(gen: LoadGenerator, lane: Lane, durationMs: number): Promise<void> {
  const before = await lane.server.stats();
  const run = await gen.run(lane.target, { durationMs, warmupMs: SLICE_WARMUP_MS });
  const after = await lane.server.stats();
  lane.runs.push(run);
  lane.cpuMs += after.cpuMs - before.cpuMs;
}

function toRow(lane: Lane): Row {
  const all = combine(lane.runs);
  const row: Row = {
    name: lane.name,
    rps: all.rps,
    p50Ms: all.p50Ms,
    p99Ms: all.p99Ms,
    cpuUsPerReq: all.total > 0 ? (lane.cpuMs * 1000) / all.total : undefined,
    checks: [],
  };
  if (all.errors > 0) row.checks.push({ target: "no failed requests", measured: `${all.errors} failed`, pass: false });
  return row;
}

export async function throughputRows(servers: Servers, gen: LoadGenerator, slicing: Slicing): Promise<Row[]> {
  const base = await servers.start("baseline");
  const hub = await servers.start("hubmcp", true).catch(async (err: unknown) => {
    await base.stop();
    throw err;
  });
  try {
    const all = lanes(base, hub, await openSession(hub.port));
    for (const lane of all) {
      await probe(lane.target, lane.expect);
      await gen.run(lane.target, { durationMs: slicing.warmupMs, warmupMs: 0 });
    }
    const rounds = Math.max(1, Math.round(slicing.durationMs / slicing.sliceMs));
    for (let round = 0; round < rounds; round++) {
      // Rotate who goes first, so no row always follows the same one.
      for (let i = 0; i < all.length; i++) await slice(gen, all[(round + i) % all.length]!, slicing.sliceMs);
    }
    const rows = all.map(toRow);
    const baseRow = rows[0]!;
    baseRow.ratio = 1;
    baseRow.rssMb = (await base.stats()).rssMb;
    baseRow.note = `${rounds} slices of ${slicing.sliceMs} ms per row, interleaved with the hubmcp rows`;
    const hubRss = (await hub.stats()).rssMb;
    for (let i = 1; i < rows.length; i++) {
      const row = rows[i]!;
      row.rssMb = hubRss;
      row.ratio = row.rps! / baseRow.rps!;
      row.checks.push(...throughputChecks(row, baseRow, all[i]!.minRatio!));
    }
    return rows;
  } finally {
    await Promise.all([base.stop(), hub.stop()]);
  }
}
