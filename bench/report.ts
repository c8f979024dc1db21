// The bench's output: one Markdown table (readable in a terminal, pasteable into the
// tables of docs/performance.md), the target checks under it, and bench/results.json.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import type { BenchOptions } from "./options.ts";
import type { Row } from "./row.ts";
import { TARGETS } from "./targets.ts";

const num = (n: number | undefined, digits: number): string =>
  n === undefined || !Number.isFinite(n) ? "" : n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

function status(row: Row): string {
  if (row.checks.length === 0) return "";
  return row.checks.every((c) => c.pass) ? "PASS" : "MISS";
}

const COLUMNS: [string, (r: Row) => string, "left" | "right"][] = [
  ["row", (r) => r.name, "left"],
  ["req/s", (r) => num(r.rps, 0), "right"],
  ["p50 ms", (r) => num(r.p50Ms, 2), "right"],
  ["p99 ms", (r) => num(r.p99Ms, 2), "right"],
  ["server CPU µs/req", (r) => num(r.cpuUsPerReq, 0), "right"],
  ["generator CPU µs/req", (r) => num(r.generatorCpuUsPerReq, 0), "right"],
  ["alloc KB/req", (r) => num(r.allocKbPerReq, 1), "right"],
  ["RSS MB", (r) => num(r.rssMb, 0), "right"],
  ["× baseline", (r) => (r.ratio === undefined ? "" : `${num(r.ratio, 2)}×`), "right"],
  ["result", (r) => r.result ?? "", "left"],
  ["target", status, "left"],
];

export function formatTable(rows: Row[]): string {
  const cells = rows.map((r) => COLUMNS.map(([, get]) => get(r)));
  const widths = COLUMNS.map(([head], i) => Math.max(head.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]): string =>
    `| ${values.map((v, i) => (COLUMNS[i]![2] === "right" ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (COLUMNS[i]![2] === "right" ? `${"-".repeat(w + 1)}:` : `:${"-".repeat(w + 1)}`)).join("|")}|`;
  return [line(COLUMNS.map(([head]) => head)), rule, ...cells.map(line)].join("\n");
}

export function formatChecks(rows: Row[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    for (const c of row.checks) lines.push(`  ${c.pass ? "PASS" : "MISS"}  ${row.name}: ${c.target} (measured ${c.measured})`);
  }
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.name}: ${r.note}`);
  return ["Targets:", ...lines, "", "Notes:", ...notes].join("\n");
}

/** The commit measured, with "+dirty" when the work tree differs from it. */
function revision(): string | null {
  try {
    const git = (...args: string[]): string => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return git("rev-parse", "--short", "HEAD") + (git("status", "--porcelain", "--untracked-files=no", "lib") ? "+dirty" : "");
  } catch {
    return null;
  }
}

export function writeResults(options: BenchOptions, rows: Row[], elapsedMs: number): void {
  const results = {
    date: new Date().toISOString(),
    revision: revision(),
    node: process.version,
    cpus: cpus().length,
    quick: options.quick,
    load: options.load,
    slicing: options.slicing,
    serverFlags: options.serverFlags,
    elapsedMs: Math.round(elapsedMs),
    targets: TARGETS,
    allPass: rows.every((r) => r.checks.every((c) => c.pass)),
    rows,
  };
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
}
