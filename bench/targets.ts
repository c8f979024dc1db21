// The targets in one table, and the checks that compare a row against them.
import type { Check, Row } from "./row.ts";

export const TARGETS = {
  /** tools/call req/s (no session) as a share of the baseline's. */
  rpcRatio: 0.8,
  /** tools/call req/s inside an initialized session as a share of the baseline's. */
  sessionRatio: 0.75,
  /** POST /tools/<name> req/s as a share of the baseline's. */
  restRatio: 0.6,
  /** p99 latency at most this many times the baseline's. */
  p99Factor: 1.5,
  /** Server RSS after 100,000 calls. */
  rssAfterMb: 100,
  /**
   * "Back near its start once load stops". Node's RSS does not return to its start after a
   * burst, not even the bare baseline's (V8 keeps its grown young generation), so what must
   * come back is the live heap after a full GC; a leak is what would keep it up.
   */
  liveHeapSettleMb: 2,
  /** RSS growth of 10,000 idle sessions over an empty server. */
  idleSessionsMb: 40,
  /** The gateway process's own CPU per tools/call, at most this many times a bare node:http proxy's in the same run. */
  gatewayVsProxyCpu: 1.25,
  /** The gateway process's own CPU per tools/call with 1,000 tools registered in its store, at most this many times with 1 tool, same run. */
  registryGatewayCpu: 1.1,
  /** The gateway process's own CPU per tools/call exporting every span (OTLP, sampler 100 %), at most this many times with tracing off, same run. */
  tracingGatewayCpu: 1.1,
  /**
   * The gateway process's own CPU per tools/call on a PostgreSQL store with the per-person limit
   * shared through it, at most this many times the file-store gateway's in the same run.
   */
  postgresGatewayCpu: 1.3,
  /** RSS of the gateway's whole process tree with 1,000 people, a session and a call each, on one shared demo revision. */
  sharedTreeMb: 300,
  /** tools/call p99 there, at 500 calls/s. */
  sharedP99Ms: 50,
  /**
   * RSS of one person's idle `process` tool session (demo `.ts` app). RSS counts the node
   * binary's pages every Node process maps: the row shows a bare node:http server's beside it.
   */
  processSessionMb: 40,
  /**
   * Proposed in place of the RSS bound, which no Node process reaches here (the bare server
   * beside it is over it): what one more person costs, the session's private memory.
   */
  processSessionPrivateMb: 40,
  /** CPU per tools/call through the hub connector `/mcp`, at most this many times the per-tool route's. */
  hubConnectorCpuFactor: 1.1,
  /** Gateway CPU per `tools/list` of a 300-tool hub at /mcp, from its catalog ("lists in milliseconds"). */
  hubConnectorListCpuMs: 5,
  /** The first `tools/list` at /mcp of a gateway of 1,000 Rappture tools, every tool.xml parsed (issue 36.7). */
  rappturesCatalogueListMs: 1000,
  /** One hub_search_tools call over those 1,000 tools (issue 36.7). */
  rappturesCatalogueSearchMs: 50,
  /**
   * Gateway peak RSS above idle while rewriting large answers, as a multiple of
   * `rewriteBudgetBytes`: the budget bounds what is held, V8's uncollected garbage comes on top
   * (about 2× measured; before the budget counted the parse copies, 4× and more).
   */
  rewriteBudgetPeakFactor: 2.5,
  /**
   * Gateway RSS growth of 1,000 idle gateway sessions over an idle gateway: no more than the
   * tool server may grow for 10,000. RSS after any burst of requests grows with V8's young
   * generation whether or not anything is kept, so this bounds the burst; what the sessions
   * themselves keep is the live heap, below.
   */
  gatewaySessionsMb: 40,
  /** Gateway live heap growth of those 1,000 sessions: the tool server's 4 KB per session (40 MB / 10,000). */
  gatewaySessionsHeapMb: 4,
  /** One broadcast reaching 1,000 SSE clients. */
  broadcastMs: 50,
  /** exec to listening for an .mjs app. */
  startupMs: 300,
  /** RSS of `start_mcp --app fixtures/demo/app.ts`, idle after start. */
  tsIdleRssMb: 70,
  /** exec to listening for that .ts app, second start (its compiled form cached). */
  tsWarmStartMs: 500,
  /** Schema validators against hand-written checks (the JSON Schema issue's target, see bench/schema.ts). */
  schemaRatio: 0.4,
  /** What a Rappture call adds (driver, private folder, run file parsed) to a program that answers at once. */
  rappturOverheadMs: 20,
  /** `hub_gateway usage` over a year of audit lines, as a multiple of only reading those lines (issue 39.4). */
  usageReadRatio: 4,
  /** Its peak RSS above the plain read's: bounded memory, whatever the number of lines. */
  usageExtraRssMb: 64,
} as const satisfies Record<string, number>;

/** `value` shown with `digits` decimals and `unit`, e.g. (0.62, 2, "×") → "0.62×". */
export interface Measure {
  value: number;
  digits: number;
  unit: string;
}

const show = (m: Measure, value = m.value): string => `${value.toFixed(m.digits)}${m.unit}`;

export function atLeast(what: string, m: Measure, min: number): Check {
  return { target: `${what} ≥ ${show(m, min)}`, measured: show(m), pass: m.value >= min };
}

export function atMost(what: string, m: Measure, max: number): Check {
  return { target: `${what} ≤ ${show(m, max)}`, measured: show(m), pass: m.value <= max };
}

/** The throughput targets of a hubmcp row against the baseline row of the same run. */
export function throughputChecks(row: Row, baseline: Row, minRatio: number): Check[] {
  const checks: Check[] = [];
  if (row.ratio !== undefined) checks.push(atLeast("req/s", { value: row.ratio, digits: 2, unit: "× base" }, minRatio));
  if (row.p99Ms !== undefined && baseline.p99Ms !== undefined) {
    checks.push(atMost("p99", { value: row.p99Ms / baseline.p99Ms, digits: 1, unit: "× base" }, TARGETS.p99Factor));
  }
  return checks;
}
