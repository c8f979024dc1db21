// The stdio transport: round trips per second of `tools/call add` through
// `start_mcp --app <add app> --stdio`, beside a bare newline-JSON echo over the same pipes
// driven the same way, with a target of 0.8× the echo. Until the launcher has --stdio, the
// hubmcp row says so.
import { cliHasFlag, writeAddApp, type BuiltPackage } from "../build.ts";
import type { Row } from "../row.ts";
import { stdioLoad, type StdioPlan, type StdioResult } from "../stdio-load.ts";

const IN_FLIGHT = 16;

function toRow(name: string, r: StdioResult): Row {
  const row: Row = { name, rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, generatorCpuUsPerReq: r.driverCpuUsPerReq, checks: [] };
  if (r.errors > 0) row.checks.push({ target: "no failed requests", measured: `${r.errors} failed`, pass: false });
  return row;
}

export async function stdioRows(pkg: BuiltPackage, echoScript: string, quick: boolean): Promise<Row[]> {
  const plan = (handshake: boolean): StdioPlan => ({ inFlight: IN_FLIGHT, warmupMs: quick ? 300 : 1000, durationMs: quick ? 1500 : 4000, handshake });
  const name = "stdio: tools/call round trips (start_mcp --stdio)";
  const base = toRow("baseline: stdio newline-JSON echo", await stdioLoad(process.execPath, [echoScript], plan(false)));
  base.ratio = 1;
  base.note = `${IN_FLIGHT} requests in flight over one child's stdin/stdout; generator column: the driving process's CPU per round trip`;
  if (!cliHasFlag(pkg, "--stdio")) {
    return [base, { name, result: "n/a (no stdio transport)", note: "this build's start_mcp --help lists no --stdio flag", checks: [] }];
  }
  try {
    const app = writeAddApp(pkg, "stdio-app.mjs");
    const hub = toRow(name, await stdioLoad(process.execPath, [pkg.cli, "--app", app, "--stdio"], plan(true)));
    hub.ratio = hub.rps! / base.rps!;
    // Issue 35: the transport's own cost stays within a fifth of bare newline-JSON over the same pipes.
    hub.checks.push({ target: "≥ 0.8× baseline", measured: `${hub.ratio.toFixed(2)}×`, pass: hub.ratio >= 0.8 });
    return [base, hub];
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    return [base, { name, result: "failed", note: message, checks: [{ target: "row measured", measured: "failed", pass: false }] }];
  }
}
