// Request rows: the bare node:http baseline and hubmcp's three ways to call a tool. Both
// servers run at once in their own processes and the generator takes turns between them in
// short slices, so noise from other work on the machine falls on every row alike.
import { performance } from "node:perf_hooks";
import type { ServerChild, Servers } from "../child.ts";
import { combine, type LoadGenerator, type LoadResult, type Target } from "../load.ts";
import { openSession, probe } from "../requests.ts";
import type { Check, Row } from "../row.ts";
import { throughputChecks } from "../targets.ts";
import { SCENARIOS, type Scenario } from "./scenarios.ts";

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
  scenario: Scenario;
  server: ServerChild;
  target: Target;
  runs: LoadResult[];
  cpuMs: number;
  /** Wall time of the slices, warm-up included, to read the server's CPU as a share of a core. */
  wallMs: number;
}

async function slice(gen: LoadGenerator, lane: Lane, durationMs: number): Promise<void> {
  const before = await lane.server.stats();
  const t0 = performance.now();
  const run = await gen.run(lane.target, { durationMs, warmupMs: SLICE_WARMUP_MS });
  lane.wallMs += performance.now() - t0;
  const after = await lane.server.stats();
  lane.runs.push(run);
  lane.cpuMs += after.cpuMs - before.cpuMs;
}

function toRow(lane: Lane): Row {
  const all = combine(lane.runs);
  const row: Row = {
    name: lane.scenario.name,
    rps: all.rps,
    p50Ms: all.p50Ms,
    p99Ms: all.p99Ms,
    cpuUsPerReq: all.total > 0 ? (lane.cpuMs * 1000) / all.total : undefined,
    generatorCpuUsPerReq: all.total > 0 ? (all.generatorCpuMs * 1000) / all.total : undefined,
    checks: [],
  };
  if (all.errors > 0) row.checks.push({ target: "no failed requests", measured: `${all.errors} failed`, pass: false });
  return row;
}

/**
 * The generator outpaces the bare server when it spends less CPU per request than that server:
 * with a core each, it can send more than the server can answer, so the baseline measures the
 * server rather than the client.
 */
function generatorOutpaces(baseRow: Row, lane: Lane): Check {
  const gen = baseRow.generatorCpuUsPerReq ?? NaN;
  const server = baseRow.cpuUsPerReq ?? NaN;
  return {
    target: "generator outpaces the bare server: generator CPU/req < server CPU/req",
    measured: `${gen.toFixed(0)} µs vs ${server.toFixed(0)} µs; server ${Math.round((100 * lane.cpuMs) / lane.wallMs)}% of a core`,
    pass: gen < server,
  };
}

export async function throughputRows(servers: Servers, gen: LoadGenerator, slicing: Slicing): Promise<Row[]> {
  const base = await servers.start("baseline");
  const hub = await servers.start("hubmcp", { profile: true }).catch(async (err: unknown) => {
    await base.stop();
    throw err;
  });
  try {
    const sessionId = await openSession(hub.port);
    const all = SCENARIOS.map((scenario): Lane => {
      const server = scenario.kind === "baseline" ? base : hub;
      return { scenario, server, target: scenario.target(server.port, sessionId), runs: [], cpuMs: 0, wallMs: 0 };
    });
    for (const lane of all) {
      await probe(lane.target, lane.scenario.expect);
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
    baseRow.checks.push(generatorOutpaces(baseRow, all[0]!));
    baseRow.note =
      `${rounds} slices of ${slicing.sliceMs} ms per row, interleaved with the hubmcp rows; ` +
      `the bare server was busy ${Math.round((100 * all[0]!.cpuMs) / all[0]!.wallMs)}% of a core during its slices`;
    const hubRss = (await hub.stats()).rssMb;
    for (let i = 1; i < rows.length; i++) {
      const row = rows[i]!;
      row.rssMb = hubRss;
      row.ratio = row.rps! / baseRow.rps!;
      // CPU per request moves less than req/s with other work on the machine.
      row.note = `server CPU per request, baseline ÷ this: ${(baseRow.cpuUsPerReq! / row.cpuUsPerReq!).toFixed(2)}× (the req/s ratio with a core to each server)`;
      row.checks.push(...throughputChecks(row, baseRow, all[i]!.scenario.minRatio!));
    }
    return rows;
  } finally {
    await Promise.all([base.stop(), hub.stop()]);
  }
}
