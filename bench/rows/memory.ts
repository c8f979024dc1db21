// Memory rows: RSS of a fresh hubmcp server after many calls (and once the load stops),
// and the cost of sessions opened and left idle.
import { setTimeout as sleep } from "node:timers/promises";
import type { Servers } from "../child.ts";
import type { LoadGenerator } from "../load.ts";
import { expectSum, probe, targets } from "../requests.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";

const mb = (n: number): string => n.toFixed(1);
/** Quiet time before the settled reading: keep-alive sockets close, timers run. */
const SETTLE_MS = 1000;

export async function callMemoryRow(servers: Servers, gen: LoadGenerator, calls: number): Promise<Row> {
  const server = await servers.start("hubmcp");
  try {
    await probe(targets.callAdd(server.port), expectSum.rpc);
    const start = await server.stats(true);
    const result = await gen.run(targets.callAdd(server.port), { requests: calls });
    const after = await server.stats();
    await sleep(SETTLE_MS);
    const settled = await server.stats(true);
    const row: Row = {
      name: `RSS over ${calls.toLocaleString("en-US")} tools/call`,
      rps: result.rps,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      rssMb: after.rssMb,
      result: `${mb(start.rssMb)} → ${mb(after.rssMb)} → ${mb(settled.rssMb)} MB`,
      note: "RSS at start (after GC) → after the calls → 1 s after the load stopped (after GC)",
      checks: [
        atMost("RSS after", { value: after.rssMb, digits: 0, unit: " MB" }, TARGETS.rssAfterMb),
        atMost("settled − start", { value: settled.rssMb - start.rssMb, digits: 1, unit: " MB" }, TARGETS.rssSettleMb),
      ],
    };
    if (result.errors > 0) row.checks.push({ target: "no failed requests", measured: `${result.errors} failed`, pass: false });
    return row;
  } finally {
    await server.stop();
  }
}

export async function idleSessionsRow(servers: Servers, gen: LoadGenerator, sessions: number): Promise<Row> {
  const server = await servers.start("hubmcp");
  try {
    const empty = await server.stats(true);
    // Every initialize without a session header mints a new session.
    const result = await gen.run(targets.initialize(server.port), { requests: sessions });
    const full = await server.stats(true);
    const growth = full.rssMb - empty.rssMb;
    const row: Row = {
      name: `${sessions.toLocaleString("en-US")} idle sessions`,
      rps: result.rps,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      rssMb: full.rssMb,
      result: `+${mb(growth)} MB (${mb(empty.rssMb)} → ${mb(full.rssMb)})`,
      note: "RSS after GC, empty server vs the same server holding the sessions; req/s is the initialize rate",
      checks: [atMost("RSS growth", { value: growth, digits: 0, unit: " MB" }, TARGETS.idleSessionsMb)],
    };
    if (full.sessions !== sessions) row.checks.push({ target: `${sessions} sessions held`, measured: `${full.sessions}`, pass: false });
    return row;
  } finally {
    await server.stop();
  }
}
