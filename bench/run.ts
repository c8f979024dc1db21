// `npm run bench [-- --quick]`: every row in one invocation, each hubmcp figure next to a
// bare node:http baseline measured in the same run, then the table and bench/results.json.
import { performance } from "node:perf_hooks";
import { serversFrom } from "./child.ts";
import { compileForBench } from "./compile.ts";
import { LoadGenerator } from "./load.ts";
import { parseOptions, USAGE, type BenchOptions } from "./options.ts";
import { formatChecks, formatTable, writeResults } from "./report.ts";
import type { Row } from "./row.ts";
import { buildPackage } from "./build.ts";
import { schemaRows } from "./rows/external.ts";
import { startupRows, tsAppRows } from "./rows/launcher.ts";
import { stdioRows } from "./rows/stdio.ts";
import { allocationPerRequest } from "./rows/allocation.ts";
import { gatewayHopRows } from "./rows/gateway.ts";
import { gatewaySessionsRow } from "./rows/gateway-sessions.ts";
import { registryHopRows } from "./rows/registry.ts";
import { hubConnectorListRow } from "./rows/hub-connector.ts";
import { rappturesCatalogueRow } from "./rows/rappture-catalogue.ts";
import { rewriteBudgetRow } from "./rows/rewrite-budget.ts";
import { rappturCallRow } from "./rows/rappture.ts";
import { processSessionRow, sharedDensityRow } from "./rows/density.ts";
import { callMemoryRow, idleSessionsRow } from "./rows/memory.ts";
import { sseRows } from "./rows/sse.ts";
import { throughputRows } from "./rows/throughput.ts";
import { usageRow } from "./rows/usage.ts";

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

async function bench(options: BenchOptions): Promise<Row[]> {
  const tree = compileForBench();
  const pkg = buildPackage();
  const gen = await LoadGenerator.start(options.load);
  try {
    const servers = serversFrom(tree.path("bench/server-child.ts"), options.cpuProfDir, options.serverFlags);
    const rows: Row[] = [];
    const phase = async (name: string, run: () => Promise<Row | Row[]>): Promise<void> => {
      if (options.only.length > 0 && !options.only.some((part) => name.includes(part))) return;
      const t0 = performance.now();
      const got = await run();
      rows.push(...(Array.isArray(got) ? got : [got]));
      log(`… ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    };
    await phase("request throughput", () => throughputRows(servers, gen, options.slicing));
    await phase("allocation per request", async () => {
      const kb = await allocationPerRequest(servers, gen, options.allocRequests);
      for (const row of rows) row.allocKbPerReq = kb.get(row.name) ?? row.allocKbPerReq;
      return [];
    });
    await phase("memory under calls", () => callMemoryRow(servers, gen, options.calls));
    await phase("idle sessions", () => idleSessionsRow(servers, gen, options.sessions));
    await phase("gateway hop", () => gatewayHopRows(servers, gen, options.slicing));
    await phase("tool registry: 1,000 registered tools", () => registryHopRows(servers, gen, options.slicing));
    await phase("idle gateway sessions", () => gatewaySessionsRow(servers, gen, options.gatewaySessions));
    await phase("hub connector listing", () => hubConnectorListRow(servers, gen, options.slicing));
    await phase("hub connector: Rappture catalogue", () => rappturesCatalogueRow(servers));
    await phase("rewrite budget", () => rewriteBudgetRow(servers));
    await phase("density: shared revision", () => sharedDensityRow(pkg, options.gatewaySessions, options.quick));
    await phase("density: process session", () => processSessionRow(pkg));
    await phase("SSE fan-out", () => sseRows(servers, options.sseClients, options.broadcasts));
    await phase("stdio", () => stdioRows(pkg, tree.path("bench/servers/stdio-echo.ts"), options.quick));
    await phase("start-up", () => startupRows(pkg, options.quick));
    await phase(".ts app", () => tsAppRows(pkg, options.quick));
    await phase("schema validation", () => schemaRows(options.quick));
    await phase("Rappture call", () => rappturCallRow(options.quick));
    await phase("usage report", () => usageRow(pkg, options.quick));
    return rows;
  } finally {
    await gen.close();
    tree.remove();
    pkg.remove();
  }
}

export async function main(argv: string[]): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(argv);
  } catch (err) {
    log(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  const { connections } = options.load;
  const seconds = options.slicing.durationMs / 1000;
  const flags = options.serverFlags.length ? `, servers run with ${options.serverFlags.join(" ")}` : "";
  log(`hubmcp bench${options.quick ? " (quick)" : ""}: autocannon with ${connections} connections, ${seconds} s per request row${flags}`);
  const t0 = performance.now();
  const rows = await bench(options);
  const elapsed = performance.now() - t0;
  console.log(`${formatTable(rows)}\n\n${formatChecks(rows)}`);
  writeResults(options, rows, elapsed);
  log(`\n${(elapsed / 1000).toFixed(1)} s; wrote ${options.out}`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
