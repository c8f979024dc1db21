// Gateway rows: the hop's cost (tools/call in a session through the gateway against the same
// call straight to the tool server behind it, interleaved in one run); what idle gateway
// sessions hold is ./gateway-sessions.ts. The gateway runs in its own process with a `url` revision pointing
// at a hubmcp child; the user and API token are made through the gateway's store code in a
// temporary data dir, removed afterwards. The hop row also runs the gateway on a Postgres
// store (./gateway-postgres.ts) when this machine has PostgreSQL.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRecordStore } from "../../lib/gateway/index.ts";
import type { ServerChild, Servers } from "../child.ts";
import { combine, type LoadGenerator, type LoadResult, type Target } from "../load.ts";
import { CALL_ADD, expectSum, INITIALIZE, openSession, PROTOCOL_VERSION, probe, targets } from "../requests.ts";
import type { Row } from "../row.ts";
import { GATEWAY_TOOL } from "../servers/gateway.ts";
import { atMost, TARGETS } from "../targets.ts";
import { addBenchUser, startPostgresGateways } from "./gateway-postgres.ts";
import type { Slicing } from "./throughput.ts";
import { startSpanSink, type SpanSink } from "../span-sink.ts";
import { spread, tracingCost, type TracingLane } from "./tracing-cost.ts";
import { pacedRun } from "../paced-load.ts";
import { tracingWork } from "./tracing-work.ts";

export const MCP_ACCEPT = { accept: "application/json, text/event-stream" };
export const PATH = `/api/mcp/${GATEWAY_TOOL}/mcp`;
/** Quiet time before the settled reading, as in the tool server's idle-sessions row. */
export const SETTLE_MS = 1000;
/**
 * Rounds of the tracing comparison (./tracing-cost.ts), three one-second slices of each of its
 * two gateways each, at a paced TRACING_RATE calls a second (a full run; a quick one takes a
 * quarter): tracing costs a few per cent, and one slice's figure moves by a tenth either way on
 * this machine, so the figure needs many.
 */
const TRACING_ROUNDS = 16;
/** Calls a second in a tracing slice: a busy gateway's steady load, about half of one core here. */
const TRACING_RATE = 2000;
const TRACING_SLICE_MS = 1000;
/** At most this many calls in flight in a tracing slice, as the flat-out rows' connections. */
const TRACING_CONNECTIONS = 50;

export interface Stack {
  tool: ServerChild;
  gateway: ServerChild;
  /** When asked for: the same gateway reading the data dir on every request, a bare proxy, and a raw-socket relay. */
  uncachedGateway?: ServerChild;
  proxy?: ServerChild;
  rawRelay?: ServerChild;
  /** The same gateway exporting a span per request to `sink`, sampler at 100 %, and its twin with tracing off. */
  tracedGateway?: ServerChild;
  untracedTwin?: ServerChild;
  /** Two gateways whose tracing the bench turns on and off as they run (./tracing-cost.ts). */
  toggled?: ServerChild[];
  sink?: SpanSink;
  bearer: Record<string, string>;
  stop(): Promise<void>;
}

/** A data dir with one user and an API token, a hubmcp child and a gateway child (`mode`: see the gateway bench server) in front of it. */
export async function startStack(servers: Servers, withComparisons = false, mode = "cached"): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-bench-gateway-"));
  const started: ServerChild[] = [];
  let sink: SpanSink | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((s) => s.stop()));
    await sink?.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const bearer = await addBenchUser(new FileRecordStore(dataDir));
    const tool = await servers.start("hubmcp");
    started.push(tool);
    const gateway = await servers.start("gateway", { profile: withComparisons, args: [dataDir, `http://127.0.0.1:${tool.port}/`, mode] });
    started.push(gateway);
    const stack: Stack = { tool, gateway, bearer, stop };
    if (withComparisons) {
      stack.uncachedGateway = await servers.start("gateway", { args: [dataDir, `http://127.0.0.1:${tool.port}/`, "uncached"] });
      started.push(stack.uncachedGateway);
      stack.proxy = await servers.start("proxy", { args: [`http://127.0.0.1:${tool.port}/`] });
      started.push(stack.proxy);
      stack.rawRelay = await servers.start("raw-relay", { args: [`http://127.0.0.1:${tool.port}/`] });
      started.push(stack.rawRelay);
      stack.sink = sink = await startSpanSink();
      stack.tracedGateway = await servers.start("gateway", { args: [dataDir, `http://127.0.0.1:${tool.port}/`, "traced", sink.url] });
      started.push(stack.tracedGateway);
      stack.untracedTwin = await servers.start("gateway", { args: [dataDir, `http://127.0.0.1:${tool.port}/`, "cached"] });
      started.push(stack.untracedTwin);
      stack.toggled = [];
      for (let i = 0; i < 2; i++) {
        const toggled = await servers.start("gateway", { args: [dataDir, `http://127.0.0.1:${tool.port}/`, "toggled", sink.url] });
        started.push(toggled);
        stack.toggled.push(toggled);
      }
    }
    return stack;
  } catch (err) {
    await stop();
    throw err;
  }
}

async function post(port: number, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${PATH}`, { method: "POST", body, headers: { "content-type": "application/json", ...MCP_ACCEPT, ...headers } });
}

/** The MCP handshake through the gateway; returns the gateway's session id. */
export async function openGatewaySession(stack: Pick<Stack, "gateway" | "bearer">, gateway = stack.gateway, bearer = stack.bearer): Promise<string> {
  const res = await post(gateway.port, INITIALIZE, bearer);
  const id = res.headers.get("mcp-session-id");
  await res.arrayBuffer();
  if (res.status !== 200 || !id) throw new Error(`initialize through the gateway failed: HTTP ${res.status}`);
  const ack = await post(gateway.port, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), {
    ...bearer,
    "mcp-session-id": id,
    "mcp-protocol-version": PROTOCOL_VERSION,
  });
  await ack.arrayBuffer();
  return id;
}

export interface Lane {
  name: string;
  target: Target;
  /** The processes whose CPU time this lane's requests cost. */
  costs: ServerChild[];
  runs: LoadResult[];
  /** CPU ms per process of `costs`. */
  cpuMs: number[];
  /** CPU ms of a process outside the bench's children (the Postgres server), read around each slice. */
  database?: { read(): number; ms: number };
}

const cpuOf = async (servers: ServerChild[]): Promise<number[]> => Promise.all(servers.map(async (s) => (await s.stats()).cpuMs));

export async function slice(gen: LoadGenerator, lane: Lane, durationMs: number): Promise<void> {
  const before = await cpuOf(lane.costs);
  const dbBefore = lane.database?.read() ?? 0;
  lane.runs.push(await gen.run(lane.target, { durationMs, warmupMs: 150 }));
  const after = await cpuOf(lane.costs);
  if (lane.database) lane.database.ms += lane.database.read() - dbBefore;
  after.forEach((ms, i) => (lane.cpuMs[i]! += ms - before[i]!));
}

export function laneRow(lane: Lane): Row & { total: number } {
  const all = combine(lane.runs);
  const cpu = lane.cpuMs.reduce((a, b) => a + b, 0);
  const row: Row & { total: number } = {
    name: lane.name,
    rps: all.rps,
    p50Ms: all.p50Ms,
    p99Ms: all.p99Ms,
    cpuUsPerReq: all.total > 0 ? (cpu * 1000) / all.total : undefined,
    generatorCpuUsPerReq: all.total > 0 ? (all.generatorCpuMs * 1000) / all.total : undefined,
    checks: [],
    total: all.total,
  };
  if (all.errors > 0) row.checks.push({ target: "no failed requests", measured: `${all.errors} failed`, pass: false });
  return row;
}

/**
 * tools/call in a session, straight to the tool server and through the gateway, in
 * slices taking turns. "Server CPU" of a hop row is the whole server side of the hop: the
 * hop's process plus the tool server behind it, per request; of the direct row, the tool
 * server alone. The target compares the two. Three rows without targets show where the cost
 * lies: the same gateway reading the data dir on every request (lookupCacheSeconds 0), a
 * bare node:http proxy, and a relay that skips node's HTTP client (the least an extra hop
 * through a node:http server costs on this machine). Two more, where PostgreSQL is installed:
 * the same gateway on a Postgres store, lookup cache on and off, compared with the file store.
 */
export async function gatewayHopRows(servers: Servers, gen: LoadGenerator, slicing: Slicing): Promise<Row[]> {
  const stack = await startStack(servers, true);
  let pg: Awaited<ReturnType<typeof startPostgresGateways>> | undefined;
  try {
    pg = await startPostgresGateways(servers, stack.tool.port);
    if (typeof pg === "string") process.stderr.write(`gateway hop: Postgres store rows skipped: ${pg}\n`);
    const session = await openSession(stack.tool.port);
    const direct = targets.sessionCallAdd(stack.tool.port, session);
    const via = async (gateway: ServerChild, bearer = stack.bearer): Promise<Target> => ({
      port: gateway.port,
      path: PATH,
      body: CALL_ADD,
      headers: { ...MCP_ACCEPT, ...bearer, "mcp-session-id": await openGatewaySession(stack, gateway, bearer), "mcp-protocol-version": PROTOCOL_VERSION },
    });
    const viaHub = async (gateway: ServerChild): Promise<Target> => {
      const headers = { "content-type": "application/json", ...MCP_ACCEPT, ...stack.bearer };
      const res = await fetch(`http://127.0.0.1:${gateway.port}/mcp`, { method: "POST", body: INITIALIZE, headers });
      const id = res.headers.get("mcp-session-id");
      await res.arrayBuffer();
      if (!id) throw new Error(`initialize at /mcp failed: HTTP ${res.status}`);
      const body = CALL_ADD.replace('"name":"add"', `"name":"${GATEWAY_TOOL}_add"`);
      return {
        port: gateway.port,
        path: "/mcp",
        body,
        headers: { ...MCP_ACCEPT, ...stack.bearer, "mcp-session-id": id, "mcp-protocol-version": PROTOCOL_VERSION },
      };
    };
    const uncached = stack.uncachedGateway!;
    const proxy = stack.proxy!;
    const raw = stack.rawRelay!;
    const lanes: Lane[] = [
      { name: "gateway hop: tools/call in session, direct", target: direct, costs: [stack.tool], runs: [], cpuMs: [0] },
      {
        name: "gateway hop: tools/call in session, via gateway",
        target: await via(stack.gateway),
        costs: [stack.gateway, stack.tool],
        runs: [],
        cpuMs: [0, 0],
      },
      {
        name: "gateway hop: tools/call through the hub connector /mcp",
        target: await viaHub(stack.gateway),
        costs: [stack.gateway, stack.tool],
        runs: [],
        cpuMs: [0, 0],
      },
      { name: "gateway hop: the same, lookupCacheSeconds 0", target: await via(uncached), costs: [uncached, stack.tool], runs: [], cpuMs: [0, 0] },
      {
        name: "gateway hop: bare node:http proxy instead",
        target: targets.sessionCallAdd(proxy.port, session),
        costs: [proxy, stack.tool],
        runs: [],
        cpuMs: [0, 0],
      },
      { name: "gateway hop: raw-socket relay instead", target: targets.sessionCallAdd(raw.port, session), costs: [raw, stack.tool], runs: [], cpuMs: [0, 0] },
      {
        name: "gateway hop: via gateway, tracing on (OTLP export, sampler 100 %)",
        target: await via(stack.tracedGateway!),
        costs: [stack.tracedGateway!, stack.tool],
        runs: [],
        cpuMs: [0, 0],
      },
      {
        name: "gateway hop: via gateway, tracing off (the traced row's twin)",
        target: await via(stack.untracedTwin!),
        costs: [stack.untracedTwin!, stack.tool],
        runs: [],
        cpuMs: [0, 0],
      },
    ];
    const pgLanes: Lane[] = [];
    if (typeof pg === "object") {
      const read = pg.databaseCpuMs;
      const database = (): { read(): number; ms: number } => ({ read, ms: 0 });
      pgLanes.push(
        {
          name: "gateway hop: via gateway, Postgres store",
          target: await via(pg.cached, pg.bearer),
          costs: [pg.cached, stack.tool],
          runs: [],
          cpuMs: [0, 0],
          database: database(),
        },
        {
          name: "gateway hop: Postgres store, lookupCacheSeconds 0",
          target: await via(pg.uncached, pg.bearer),
          costs: [pg.uncached, stack.tool],
          runs: [],
          cpuMs: [0, 0],
          database: database(),
        },
        {
          name: "gateway hop: Postgres store, rate limit per replica",
          target: await via(pg.localLimit, pg.bearer),
          costs: [pg.localLimit, stack.tool],
          runs: [],
          cpuMs: [0, 0],
          database: database(),
        },
      );
      lanes.push(...pgLanes);
    }
    for (const lane of lanes) {
      await probe(lane.target, expectSum.rpc);
      await gen.run(lane.target, { durationMs: slicing.warmupMs, warmupMs: 0 });
    }
    // Half the request rows' time per lane: six to nine lanes, and the gateway's are slow.
    const rounds = Math.max(1, Math.round(slicing.durationMs / 2 / slicing.sliceMs));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < lanes.length; i++) await slice(gen, lanes[(round + i) % lanes.length]!, slicing.sliceMs);
    }
    // Tracing on against off is a difference of a few per cent: read inside each of two processes, in steady paced slices (./tracing-cost.ts).
    // Lanes of their own, so that the rows' rates and latencies stay those of the flat-out slices.
    let notSent = 0;
    const tracingLane = async (gateway: ServerChild): Promise<TracingLane> => {
      const target = await via(gateway);
      await probe(target, expectSum.rpc);
      const lane: TracingLane = {
        run: async () => {
          const paced = await pacedRun(target, { rate: TRACING_RATE, durationMs: TRACING_SLICE_MS, connections: TRACING_CONNECTIONS });
          if (paced.errors > 0) throw new Error(`${paced.errors} calls failed in a tracing slice, the first: ${paced.firstFailure}`);
          notSent += paced.skipped;
          return paced.ok;
        },
        cpuMs: async () => (await gateway.stats()).cpuMs,
        setTracing: (on) => gateway.setTracing(on),
      };
      // Both ways compiled before the rounds.
      for (const on of [true, false, true, false]) {
        if (on) await lane.setTracing(true);
        await lane.run();
        if (on) await lane.setTracing(false);
      }
      return lane;
    };
    const tracingLanes = [];
    for (const gateway of stack.toggled!) tracingLanes.push(await tracingLane(gateway));
    notSent = 0;
    const tracing = await tracingCost(tracingLanes, slicing.sliceMs < 1000 ? TRACING_ROUNDS / 4 : TRACING_ROUNDS);
    const work = tracingWork(20_000);
    type Counted = Row & { total: number };
    const [directRow, viaRow, hubRow, uncachedRow, proxyRow, rawRow, tracedRow, twinRow, ...pgRows] = lanes.map(laneRow) as [
      Counted,
      Counted,
      Counted,
      Counted,
      Counted,
      Counted,
      Counted,
      Counted,
      ...Counted[],
    ];
    directRow.ratio = 1;
    directRow.rssMb = (await stack.tool.stats()).rssMb;
    directRow.note = `${rounds} slices of ${slicing.sliceMs} ms per row, taking turns with the gateway rows; server CPU is the tool server's`;
    const hops: [Counted, Lane, ServerChild][] = [
      [viaRow, lanes[1]!, stack.gateway],
      [hubRow, lanes[2]!, stack.gateway],
      [uncachedRow, lanes[3]!, uncached],
      [proxyRow, lanes[4]!, proxy],
      [rawRow, lanes[5]!, raw],
      [tracedRow, lanes[6]!, stack.tracedGateway!],
      [twinRow, lanes[7]!, stack.untracedTwin!],
    ];
    pgRows.forEach((row, i) => hops.push([row, pgLanes[i]!, pgLanes[i]!.costs[0]!]));
    for (const [row, lane, gateway] of hops) {
      const us = (ms: number): string => ((ms * 1000) / row.total).toFixed(0);
      const factor = row.cpuUsPerReq! / directRow.cpuUsPerReq!;
      row.ratio = row.rps! / directRow.rps!;
      row.rssMb = (await gateway.stats()).rssMb;
      row.note =
        `server CPU is the gateway's ${us(lane.cpuMs[0]!)} µs + the tool server's ${us(lane.cpuMs[1]!)} µs per request ` +
        `(${factor.toFixed(2)}× the direct row's); RSS is the hop's process's; × baseline is against the direct row`;
    }
    uncachedRow.note += "; not a target: the gateway above reading token, account and tool session from the data dir on every request";
    proxyRow.note += "; not a target: node:http server and client relaying headers and body, nothing else";
    rawRow.note +=
      "; not a target: a node:http server relaying over raw keep-alive sockets (no node:http client), the least a hop through node:http costs here";
    // The hop's own process: the gateway's CPU per call against the bare proxy's, same tool server behind both.
    const own = (lane: Lane, row: Counted): number => lane.cpuMs[0]! / row.total;
    const sink = stack.sink!;
    tracedRow.note +=
      `; a gateway process exporting a span per call to a local OTLP sink (${sink.spans()} spans received in ${sink.posts()} exports, ` +
      `${(sink.bytes() / Math.max(1, sink.spans())).toFixed(0)} bytes of OTLP JSON per span), compared with its twin below, flat out: ` +
      `${(own(lanes[6]!, tracedRow) / own(lanes[7]!, twinRow)).toFixed(2)}× its gateway CPU per call; ` +
      `the check is read inside two other gateway processes whose tracing the bench turns on and off, at a paced ${TRACING_RATE} calls/s: ` +
      `each round one slice on and two off, all on slices' CPU per call over all off slices' ${tracing.pooled.toFixed(3)}× ` +
      `(the median of the ${tracing.ratios.length} rounds' ratios ${spread(tracing.ratios)}); ` +
      `the first off slices against the second, the same way, ${tracing.alikePooled.toFixed(3)}× (rounds ${spread(tracing.alike)}: how far alike slices read apart here)` +
      `${notSent > 0 ? `; ${notSent} calls not sent, every connection busy` : ""}; ` +
      `tracing's own work, timed in the bench's process: ${(work.tracedUs - work.untracedUs).toFixed(1)} µs per call ` +
      `(${work.tracedUs.toFixed(1)} traced against ${work.untracedUs.toFixed(1)} untraced; ` +
      `${((100 * (work.tracedUs - work.untracedUs)) / (own(lanes[7]!, twinRow) * 1000)).toFixed(0)} % of the twin's gateway CPU per call)`;
    twinRow.note +=
      "; not a target: a gateway process started like the traced one, tracing off, serving only this lane (the via-gateway row's process also serves the /mcp lane)";
    const [pgCachedRow, pgUncachedRow, pgLocalRow] = pgRows;
    if (pgCachedRow && pgUncachedRow && pgLocalRow) {
      const versus = (row: Counted, file: Counted, what: string): string =>
        `${(row.cpuUsPerReq! / file.cpuUsPerReq!).toFixed(2)}× the CPU/req and ${(row.rps! / file.rps!).toFixed(2)}× the req/s of ${what}`;
      const dbUs = (lane: Lane, row: Counted): string => ((lane.database!.ms * 1000) / row.total).toFixed(0);
      pgCachedRow.note +=
        `; not a target: the gateway above on a throwaway PostgreSQL cluster (loopback, fsync off) as \`--store postgres://\` runs it, ` +
        `so the per-person rate limit is shared through the database (what this replica's own bucket lets through, written in batches per person); ` +
        `${versus(pgCachedRow, viaRow, "the file-store gateway row")}; ` +
        `PostgreSQL's own CPU, not in server CPU: ${dbUs(pgLanes[0]!, pgCachedRow)} µs per request`;
      pgUncachedRow.note +=
        `; not a target: the Postgres gateway reading token, account and tool session from the database on every request; ` +
        `${versus(pgUncachedRow, viaRow, "the file-store gateway row")}, ${versus(pgUncachedRow, uncachedRow, "the file store's lookupCacheSeconds 0 row")}; ` +
        `PostgreSQL's own CPU, not in server CPU: ${dbUs(pgLanes[1]!, pgUncachedRow)} µs per request`;
      pgLocalRow.note +=
        `; not a target: the cached Postgres gateway with the per-person rate limit in process memory, as on the file store (the rate limit then counts per replica); ` +
        `${versus(pgLocalRow, viaRow, "the file-store gateway row")}; PostgreSQL's own CPU, not in server CPU: ${dbUs(pgLanes[2]!, pgLocalRow)} µs per request`;
    }
    viaRow.checks.push(
      atMost(
        "gateway CPU/req vs bare node:http proxy",
        { value: own(lanes[1]!, viaRow) / own(lanes[4]!, proxyRow), digits: 2, unit: "×" },
        TARGETS.gatewayVsProxyCpu,
      ),
    );
    if (pgCachedRow)
      pgCachedRow.checks.push(
        atMost(
          "gateway CPU/req, Postgres store with shared limit vs file store",
          { value: own(pgLanes[0]!, pgCachedRow) / own(lanes[1]!, viaRow), digits: 2, unit: "×" },
          TARGETS.postgresGatewayCpu,
        ),
      );
    tracedRow.checks.push(
      atMost(
        "gateway CPU/req, tracing on vs off (inside one process, paced slices pooled)",
        { value: tracing.pooled, digits: 3, unit: "×" },
        TARGETS.tracingGatewayCpu,
      ),
    );
    hubRow.checks.push(
      atMost(
        "CPU/req via /mcp vs via /api/mcp/{tool}/mcp",
        { value: hubRow.cpuUsPerReq! / viaRow.cpuUsPerReq!, digits: 2, unit: "×" },
        TARGETS.hubConnectorCpuFactor,
      ),
    );
    return [directRow, viaRow, tracedRow, twinRow, hubRow, uncachedRow, ...pgRows, proxyRow, rawRow].map(strip);
  } finally {
    if (typeof pg === "object") await pg.stop();
    await stack.stop();
  }
}

export const strip = ({ total: _total, ...row }: Row & { total: number }): Row => row;
