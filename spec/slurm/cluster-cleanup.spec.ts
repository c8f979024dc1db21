// The one-node Slurm cluster the specs start (spec/helpers/slurm.ts) leaves nothing behind:
// after a spec file that used it passes, fails or is interrupted with Ctrl-C while a job
// runs, no process started on the cluster's config (munged, slurmctld, slurmscriptd, slurmd,
// the job) and no folder of it remains. Each case runs a small spec file in a child
// `node --test`, as `npm test` does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers/launcher-fixtures.ts";
import { IS_ROOT } from "../helpers/os-user.ts";

const HELPER = fileURLToPath(new URL("../helpers/slurm.ts", import.meta.url));

/** A spec file that starts the cluster, submits a job, writes the cluster's folder to `report` once the job runs, and on `<report>.go` goes on to `ending`. */
function specFile(dir: string, report: string, ending: string): string {
  const path = join(dir, "uses-slurm.spec.mjs");
  writeFileSync(
    path,
    `import { test } from "node:test";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { slurmCluster, squeueState } from ${JSON.stringify(HELPER)};
test("uses the cluster", { timeout: 120_000 }, async (t) => {
  const cluster = await slurmCluster(t);
  if (!cluster) return;
  const job = spawnSync("sbatch", ["--parsable", "--output=/dev/null", "--wrap=exec sleep 600"], { env: process.env, encoding: "utf8" }).stdout.trim();
  while (squeueState(job) !== "RUNNING") await new Promise((r) => setTimeout(r, 100));
  writeFileSync(${JSON.stringify(report)}, cluster.dir);
  while (!existsSync(${JSON.stringify(`${report}.go`)})) await new Promise((r) => setTimeout(r, 100));
  ${ending}
});
`,
  );
  return path;
}

/** Processes whose config or arguments name the cluster in `dir`. */
function leftovers(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.split(") ")[1]?.startsWith("Z")) continue;
      if (environ.includes(`SLURM_CONF=${join(dir, "slurm.conf")}`) || readFileSync(`/proc/${name}/cmdline`, "utf8").includes(dir)) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Bounded wait for a state only the kernel reports. */
async function until(ready: () => boolean, withinMs: number): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (!ready() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return ready();
}

const CASES = {
  passes: "",
  fails: 'throw new Error("the spec fails");',
  "is interrupted (Ctrl-C)": "await new Promise(() => {});",
} as const;

for (const [how, ending] of Object.entries(CASES)) {
  test(`a spec file using the Slurm cluster that ${how} leaves no process and no folder of it`, {
    skip: !IS_ROOT && "the cluster's daemons need root",
    timeout: 240_000,
  }, async (t) => {
    const dir = tempDir(t);
    const report = join(dir, "cluster-dir");
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.SLURM_CONF; // its own cluster, not one this process may share
    delete env.NODE_V8_COVERAGE;
    for (const name of Object.keys(env)) if (name.startsWith("NODE_TEST")) delete env[name]; // a test run of its own, not a file of ours
    // Its own process group, as a terminal's foreground job is: Ctrl-C signals the whole group.
    const child = spawn(process.execPath, ["--import", "tsx", "--test", specFile(dir, report, ending)], { env, detached: true, stdio: "ignore" });
    let ended = false;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code))).finally(() => (ended = true));
    t.after(() => (child.exitCode === null && child.signalCode === null ? (process.kill(-child.pid!, "SIGKILL"), exited) : undefined));
    await until(() => existsSync(report) || ended, 180_000);
    if (!existsSync(report)) return void t.skip("the child spec did not start a cluster (Slurm missing here)");
    const cluster = readFileSync(report, "utf8");
    assert.ok(existsSync(cluster) && leftovers(cluster).length >= 4, "the daemons and the job run while the spec does");
    if (how.startsWith("is interrupted")) process.kill(-child.pid!, "SIGINT");
    else writeFileSync(`${report}.go`, "");
    const code = await exited;
    if (how === "passes") assert.equal(code, 0);
    else assert.notEqual(code, 0);
    assert.ok(await until(() => !existsSync(cluster) && leftovers(cluster).length === 0, 90_000), `left behind: ${leftovers(cluster).join(", ")}`);
  });
}
