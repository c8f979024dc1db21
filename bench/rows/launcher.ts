// Rows about the launcher, run from the built package: start-up of an .mjs app, and the
// demo app loaded from TypeScript (`start_mcp --app fixtures/demo/app.ts`): its idle RSS
// and its warm start (the second and later starts, its compiled form cached).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, type BuiltPackage } from "../build.ts";
import type { Row } from "../row.ts";
import { median, startLauncher, startupRow, timeToReady } from "../startup.ts";
import { atMost, TARGETS } from "../targets.ts";

const TS_APP = join(ROOT, "fixtures", "demo", "app.ts");
/** Quiet time after the ready line before RSS is read: start-up work (timers, a compile child) finishes. */
const IDLE_MS = 1000;

function failedRow(name: string, err: unknown): Row {
  const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
  return { name, result: "failed", note: message, checks: [{ target: "row measured", measured: "failed", pass: false }] };
}

export async function startupRows(pkg: BuiltPackage, quick: boolean): Promise<Row[]> {
  try {
    const { name, ms } = await startupRow(pkg, quick);
    return [{ name, result: `${ms.toFixed(0)} ms`, checks: [atMost("start-up", { value: ms, digits: 0, unit: " ms" }, TARGETS.startupMs)] }];
  } catch (err) {
    return [failedRow("start-up (.mjs app, exec → listening)", err)];
  }
}

/** Resident set of a process and every process below it, in MB (Linux /proc). */
function treeRssMb(pid: number): number {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name (2nd field) is in parentheses and may hold spaces; ppid follows it.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let kb = 0;
  for (const p of tree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kb / 1024;
}

export async function tsAppRows(pkg: BuiltPackage, _quick: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  // The first start compiles the app (and fills any cache); it is not counted as warm.
  let coldMs: number;
  try {
    const first = await startLauncher(pkg.cli, TS_APP);
    coldMs = first.ms;
    await sleep(IDLE_MS);
    const rssMb = treeRssMb(first.child.pid!);
    await first.stop();
    rows.push({
      name: "idle RSS (.ts app: start_mcp --app fixtures/demo/app.ts)",
      rssMb,
      result: `${rssMb.toFixed(0)} MB`,
      note: `RSS of the launcher and any process it started, ${IDLE_MS / 1000} s after its ready line, no request served`,
      checks: [atMost("idle RSS", { value: rssMb, digits: 0, unit: " MB" }, TARGETS.tsIdleRssMb)],
    });
  } catch (err) {
    return [failedRow("idle RSS (.ts app: start_mcp --app fixtures/demo/app.ts)", err), failedRow("warm start (.ts app, exec → listening)", err)];
  }
  try {
    const times: number[] = [];
    // A start far over its target is timed once, so it cannot stretch the run by a minute.
    const runs = coldMs > 4 * TARGETS.tsWarmStartMs ? 1 : 3;
    for (let i = 0; i < runs; i++) times.push(await timeToReady(pkg.cli, TS_APP));
    const ms = median(times);
    rows.push({
      name: "warm start (.ts app, exec → listening)",
      result: `${ms.toFixed(0)} ms`,
      note: `median of ${times.length} start(s) after a first one (${coldMs.toFixed(0)} ms) that may compile and cache the app`,
      checks: [atMost("warm start", { value: ms, digits: 0, unit: " ms" }, TARGETS.tsWarmStartMs)],
    });
  } catch (err) {
    rows.push(failedRow("warm start (.ts app, exec → listening)", err));
  }
  return rows;
}
