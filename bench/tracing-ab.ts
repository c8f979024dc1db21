// `node --import tsx bench/tracing-ab.ts [--rounds N] [--slice-ms MS] [--rate N [--paced]] [--sampler NAME] [--control] [--baseline-root DIR] [--cpu-prof DIR]`:
// the traced gateway against its untraced twin and nothing else, for taking tracing's cost on
// the hop apart without a whole bench run (issue 39). Every lane gets one slice per round, in an
// order turned by one place each round (and reversed every other turn), so each process is as busy
// as the others and a drift in the machine's load falls on all alike; each round gives one ratio of a lane's own CPU per call to
// the twin's; their median is printed beside each lane's CPU per call over the whole run (the pooled figure the "gateway hop" check reads).
// `--sampler always_off`: spans made and dropped, nothing exported. `--control`: a second
// untraced gateway, to show how far two processes started alike differ on this machine.
// `--baseline-root`: one more traced gateway, compiled from another checkout of the repository
// (`git archive main | tar -x -C DIR`, node_modules linked), for a before/after in one run, read
// as the median of the per-round ratio of the two traced lanes. `--rate`: every lane at that many
// requests per second (an open loop) instead of as fast as answers come, so a slower lane does not
// also batch less per event-loop turn; with `--paced`, the calls are sent at evenly spaced times
// (./paced-load.ts) rather than as autocannon spends a rate, each second's share in a burst. Each
// lane's own CPU is split into user and kernel time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { FileRecordStore } from "../lib/gateway/index.ts";
import { type Servers, serversFrom, type ServerChild, type Stats } from "./child.ts";
import { compileForBench, type CompiledTree } from "./compile.ts";
import autocannon from "autocannon";
import { combine, LoadGenerator, median } from "./load.ts";
import { CALL_ADD, expectSum, probe, PROTOCOL_VERSION } from "./requests.ts";
import { addBenchUser } from "./rows/gateway-postgres.ts";
import { type Lane, MCP_ACCEPT, openGatewaySession, PATH, slice } from "./rows/gateway.ts";
import { pacedRun } from "./paced-load.ts";
import { startSpanSink } from "./span-sink.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "12" },
    "slice-ms": { type: "string", default: "1000" },
    sampler: { type: "string", default: "always_on" },
    control: { type: "boolean", default: false },
    "baseline-root": { type: "string" },
    rate: { type: "string" },
    "cpu-prof": { type: "string" },
    paced: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const sliceMs = Number(values["slice-ms"]);
/** Requests per second, when given: every lane then runs at the same rate, so its process batches alike. */
const rate = values.rate === undefined ? undefined : Number(values.rate);
// autocannon spends its rate per whole second: a shorter slice gets a second's requests in a burst.
if (rate !== undefined && sliceMs % 1000 !== 0) throw new Error("--rate needs --slice-ms in whole seconds");
if (values.paced && rate === undefined) throw new Error("--paced needs --rate");

/** A slice at the fixed rate: as ./rows/gateway.ts's slice, without latencies. */
async function rateSlice(l: Lane, ms: number): Promise<void> {
  const cpu = async (): Promise<number[]> => Promise.all(l.costs.map(async (s) => (await s.stats()).cpuMs));
  const before = await cpu();
  if (values.paced) {
    const t = performance.now();
    const r = await pacedRun(l.target, { rate: rate!, durationMs: ms, connections: 50 });
    const a = await cpu();
    a.forEach((v, i) => (l.cpuMs[i]! += v - before[i]!));
    l.runs.push({
      requests: r.ok,
      total: r.ok,
      errors: r.errors,
      rps: 0,
      p50Ms: Number.NaN,
      p99Ms: Number.NaN,
      elapsedMs: performance.now() - t,
      generatorCpuMs: 0,
      latencies: new Float64Array(0),
    });
    return;
  }
  let total = 0;
  let errors = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const run = autocannon(
      {
        url: `http://127.0.0.1:${l.target.port}${l.target.path}`,
        method: "POST",
        headers: { ...l.target.headers, "content-type": "application/json" },
        body: l.target.body,
        connections: 50,
        overallRate: rate,
        duration: ms / 1000,
        timeout: 10,
      },
      (err) => (err ? reject(err) : resolve()),
    );
    run.on("response", (_client: unknown, status: number) => (status === 200 ? total++ : errors++));
  });
  const after = await cpu();
  after.forEach((v, i) => (l.cpuMs[i]! += v - before[i]!));
  const elapsedMs = performance.now() - t0;
  l.runs.push({ requests: total, total, errors, rps: 0, p50Ms: Number.NaN, p99Ms: Number.NaN, elapsedMs, generatorCpuMs: 0, latencies: new Float64Array(0) });
}

const trees: CompiledTree[] = [compileForBench()];
const servers = serversFrom(trees[0]!.path("bench/server-child.ts"), values["cpu-prof"] ?? null);
const gen = await LoadGenerator.start({ connections: 50 });
const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-tracing-ab-"));
const sink = await startSpanSink();
const started: ServerChild[] = [];
try {
  const bearer = await addBenchUser(new FileRecordStore(dataDir));
  const tool = await servers.start("hubmcp");
  started.push(tool);
  const upstream = `http://127.0.0.1:${tool.port}/`;
  const lane = async (name: string, from: Servers, args: string[]): Promise<Lane> => {
    const gateway = await from.start("gateway", { args: [dataDir, upstream, ...args], profile: true });
    started.push(gateway);
    const session = await openGatewaySession({ gateway, bearer });
    const headers = { ...MCP_ACCEPT, ...bearer, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
    // The tool server's CPU is read too: what a traced body costs it is no gateway's, but slows the hop.
    return { name, target: { port: gateway.port, path: PATH, body: CALL_ADD, headers }, costs: [gateway, tool], runs: [], cpuMs: [0, 0] };
  };
  const twin = await lane("untraced twin", servers, ["cached"]);
  const lanes = [await lane(`traced (${values.sampler})`, servers, ["traced", sink.url, values.sampler])];
  if (values.control) lanes.push(await lane("untraced control", servers, ["cached"]));
  const baseline = values["baseline-root"];
  if (baseline) {
    const compile = (await import(join(baseline, "bench/compile.ts"))) as { compileForBench: typeof compileForBench };
    trees.push(compile.compileForBench());
    lanes.push(await lane("traced, baseline checkout", serversFrom(trees[1]!.path("bench/server-child.ts"), null), ["traced", sink.url]));
  }
  const all = [twin, ...lanes];
  for (const l of all) {
    await probe(l.target, expectSum.rpc);
    await gen.run(l.target, { durationMs: 1500, warmupMs: 0 });
  }
  const calls = (l: Lane): number => l.runs.reduce((n, r) => n + r.total, 0);
  const counters = async (): Promise<Stats[]> => Promise.all(all.map(async (l) => l.costs[0]!.stats()));
  const before = await counters();
  const ratios = lanes.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    const own = new Map<Lane, number>();
    // Each lane takes each place in the order, forwards and backwards, as often as the others: a
    // lane that always ran next to the twin read up to 6 % apart from one that did not, whatever its code.
    const turn = round % all.length;
    const order = [...all.slice(turn), ...all.slice(0, turn)];
    for (const l of Math.floor(round / all.length) % 2 === 0 ? order : order.reverse()) {
      const [cpu, n] = [l.cpuMs[0]!, calls(l)];
      await (rate ? rateSlice(l, sliceMs) : slice(gen, l, sliceMs));
      own.set(l, ((l.cpuMs[0]! - cpu) * 1000) / Math.max(1, calls(l) - n));
    }
    lanes.forEach((l, i) => ratios[i]!.push(own.get(l)! / own.get(twin)!));
  }
  const after = await counters();
  all.forEach((l, i) => {
    const n = Math.max(1, calls(l));
    const load = combine(l.runs);
    const r =
      i === 0
        ? ""
        : (() => {
            const sorted = [...ratios[i - 1]!].sort((x, y) => x - y);
            return `median ${median(sorted).toFixed(3)}× (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}) of the twin's, `;
          })();
    // A checkout from before the kernel share was reported has none.
    const kernel = after[i]!.systemMs === undefined ? "?" : (((after[i]!.systemMs - before[i]!.systemMs) * 1000) / n).toFixed(1);
    console.log(
      `${l.name}: ${n} calls, ${r}${((l.cpuMs[0]! * 1000) / n).toFixed(1)} µs/call own (${kernel} of it in the kernel), tool server ${((l.cpuMs[1]! * 1000) / n).toFixed(1)} µs/call, ` +
        `${(l.runs.reduce((k, run) => k + run.requests, 0) / (l.runs.reduce((ms, run) => ms + run.elapsedMs, 0) / 1000)).toFixed(0)} calls/s, p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms, ` +
        `per 1000 calls ${(((after[i]!.scavenges - before[i]!.scavenges) * 1000) / n).toFixed(2)} scavenges, ` +
        `${(((after[i]!.fullGcs - before[i]!.fullGcs) * 1000) / n).toFixed(2)} full collections, ${(((after[i]!.gcMs - before[i]!.gcMs) * 1000) / n).toFixed(1)} ms collecting, ` +
        `${(((after[i]!.minorPageFaults - before[i]!.minorPageFaults) * 1000) / n).toFixed(0)} page faults`,
    );
  });
  if (baseline) {
    const r = ratios[0]!.map((x, k) => x / ratios.at(-1)![k]!).sort((a, b) => a - b);
    console.log(
      `traced against traced from the baseline checkout, per round: median ${median(r).toFixed(3)}× (${r[0]!.toFixed(2)}–${r.at(-1)!.toFixed(2)}), below 1 in ${r.filter((x) => x < 1).length} of ${r.length}`,
    );
  }
  console.log(`sink: ${sink.spans()} spans in ${sink.posts()} exports`);
} finally {
  await Promise.all(started.map((s) => s.stop()));
  await sink.close();
  await gen.close();
  rmSync(dataDir, { recursive: true, force: true });
  for (const tree of trees) tree.remove();
}
