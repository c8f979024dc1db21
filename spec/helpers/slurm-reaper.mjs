// The reaper of a spec's one-node Slurm cluster (spec/helpers/slurm.ts). It runs in a session
// of its own beside the cluster and waits for its stdin to close: the spec's teardown closes
// it, and so does the end of the spec process however it comes (a failure, a timeout that cuts
// the teardown short, Ctrl-C, SIGKILL). Then it cancels the cluster's jobs, stops its daemons,
// ends whatever else still runs on the cluster's config (job steps, slurmscriptd, children a
// spec left) and removes the cluster's folder. Its stdin carries the daemons' pids, in start order.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const conf = join(dir, "slurm.conf");
const env = { ...process.env, SLURM_CONF: conf };
/** The spec process: its own environment never names this cluster, and it is not ours to end. */
const spec = process.ppid;

const state = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
  } catch {
    return undefined;
  }
};
// A zombie waits for its parent to read it; it runs nothing.
const alive = (pid) => state(pid) !== undefined && state(pid) !== "Z";

/** Bounded polling of a state only the kernel or a Slurm command reports. */
async function until(ready, withinMs) {
  const end = Date.now() + withinMs;
  while (!ready() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
}

const squeue = () => spawnSync("squeue", ["-h", "-o", "%i"], { env, encoding: "utf8", timeout: 10_000 });
const kill = (pid, signal) => {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
};

/** Processes started on this cluster's config or folder, wherever they came from. */
function onCluster() {
  const found = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || pid === spec || !alive(pid)) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (environ.includes(`SLURM_CONF=${conf}`) || cmdline.includes(dir)) found.push(pid);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

async function reap(daemons) {
  const jobs = squeue();
  const ids = jobs.status === 0 ? jobs.stdout.split("\n").filter((id) => /^\d+$/.test(id.trim())) : [];
  if (ids.length > 0) {
    spawnSync("scancel", ids, { env, stdio: "ignore", timeout: 10_000 });
    await until(() => squeue().stdout?.trim() === "", 30_000);
  }
  // slurmd, then the controller, then munge; each daemon leads its own process group.
  for (const pid of daemons.reverse()) {
    kill(-pid, "SIGTERM");
    await until(() => !alive(pid), 10_000);
    kill(-pid, "SIGKILL");
  }
  for (const pid of onCluster()) kill(pid, "SIGKILL");
  await until(() => onCluster().length === 0, 10_000);
  rmSync(dir, { recursive: true, force: true });
}

let input = "";
process.stdin.setEncoding("utf8").on("data", (chunk) => {
  input += chunk;
});
process.stdin.once("close", () =>
  reap(
    input
      .split("\n")
      .filter((line) => /^\d+$/.test(line))
      .map(Number),
  ),
);
