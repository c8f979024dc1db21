// What a Rappture call adds around its program: the same program that answers at once, run
// directly (sh instant.sh driver.xml) and as a Rappture call (arguments checked, driver
// written, run in a private folder, run file read and parsed, outputs as data), each the
// median of many sequential runs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { currentValues } from "../../lib/rappture/arguments.ts";
import { readOutputs } from "../../lib/rappture/outputs.ts";
import { runRappture } from "../../lib/rappture/run.ts";
import { readToolXml } from "../../lib/rappture/tool-xml.ts";
import { ROOT } from "../build.ts";
import type { Row } from "../row.ts";
import { median } from "../startup.ts";
import { atMost, TARGETS } from "../targets.ts";

const TOOL = join(ROOT, "fixtures", "rappture", "instant", "tool.xml");

function direct(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", [join(ROOT, "fixtures", "rappture", "instant", "instant.sh"), join(dir, "driver.xml")], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.resume();
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`instant.sh exited ${code}`))));
  });
}

export async function rappturCallRow(quick: boolean): Promise<Row> {
  const runs = quick ? 20 : 100;
  const tool = readToolXml(TOOL);
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-bench-rappture-"));
  try {
    writeFileSync(join(dir, "driver.xml"), "<run/>");
    const directMs: number[] = [];
    const rappturMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t0 = performance.now();
      await direct(dir);
      directMs.push(performance.now() - t0);
      t0 = performance.now();
      const checked = currentValues(tool.inputs, { x: "2 cm" });
      if (!checked.ok) throw new Error(checked.problem);
      const run = await runRappture(tool, checked.current, { timeoutMs: 30_000, env: process.env });
      if (!run.ok) throw new Error(run.problem);
      readOutputs(run.run);
      rappturMs.push(performance.now() - t0);
    }
    const [d, r] = [median(directMs), median(rappturMs)];
    return {
      name: "Rappture call overhead (program answering at once)",
      result: `${r.toFixed(1)} ms vs ${d.toFixed(1)} ms direct`,
      checks: [atMost("added per call", { value: r - d, digits: 1, unit: " ms" }, TARGETS.rappturOverheadMs)],
      note: `median of ${runs} sequential runs each`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
