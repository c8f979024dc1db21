// A real one-node Slurm cluster for the specs that need one: munged, slurmctld and slurmd
// started from a private temporary folder (their config reaches the commands through
// SLURM_CONF, so nothing in /etc is needed or touched), on free ports. The daemons run in
// sessions of their own, so a test runner's signals do not reach them, and a t.after hook
// alone cannot stop them: a spec process that ends early (a timeout cutting its hooks short,
// Ctrl-C, SIGKILL) runs none. A reaper (./slurm-reaper.mjs) beside them ends the cluster,
// its jobs and its folder when the spec's teardown or the spec process's end closes its stdin.
// Missing Slurm binaries skip with the reason, except with CI set: there they fail the spec.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./launcher-fixtures.ts";

export interface SlurmCluster {
  /** The slurm.conf in use; also in process.env.SLURM_CONF while the cluster runs. */
  conf: string;
  partition: string;
  dir: string;
}

const BINARIES = ["munged", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scancel"];
const PATHS = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"];
const READY_WITHIN_MS = 60_000;

const inCi = (): boolean => !["", "0", "false"].includes((process.env.CI ?? "").toLowerCase());

function which(name: string): string | null {
  for (const dir of PATHS) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/** Bounded polling of a state only a command can report (a daemon ready, a socket made). */
async function waitFor(what: string, ready: () => boolean, withinMs = READY_WITHIN_MS): Promise<void> {
  const until = Date.now() + withinMs;
  while (!ready()) {
    if (Date.now() > until) throw new Error(`Slurm cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function conf(dir: string, ports: { ctld: number; d: number }): string {
  // The node as this machine really is, so slurmd does not drain it for a mismatch.
  const probe = spawnSync(which("slurmd")!, ["-C"], { encoding: "utf8" }).stdout ?? "";
  const cpus = /CPUs=(\d+)/.exec(probe)?.[1] ?? "1";
  const mem = Math.max(1, Number(/RealMemory=(\d+)/.exec(probe)?.[1] ?? "1000") - 1000);
  return `ClusterName=hubmcp
SlurmctldHost=localhost
SlurmctldPort=${ports.ctld}
SlurmdPort=${ports.d}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=${dir}/munge.socket
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd.pid
SlurmctldLogFile=${dir}/slurmctld.log
SlurmdLogFile=${dir}/slurmd.log
KillWait=5
InactiveLimit=0
MinJobAge=300
NodeName=localhost CPUs=${cpus} RealMemory=${mem} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`;
}

const REAPER = fileURLToPath(new URL("./slurm-reaper.mjs", import.meta.url));

/** The reaper of the cluster in `dir`: told each daemon's pid, it ends them all once `end()` is called or this process ends. */
function reaper(dir: string): { watch(pid: number): void; end(): Promise<void> } {
  const child = spawn(process.execPath, [REAPER, dir], { detached: true, stdio: ["pipe", "ignore", "ignore"], env: process.env });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Neither it nor its pipe keeps this process alive: this process's end is its signal too.
  child.unref();
  (child.stdin as unknown as Socket).unref();
  return {
    watch: (pid) => void child.stdin!.write(`${pid}\n`),
    end: async () => {
      child.ref();
      child.stdin!.end();
      await exited;
    },
  };
}

function daemon(path: string, args: string[], reaping: { watch(pid: number): void }): ChildProcess {
  // Its own session (the recipe's setsid): a test runner's signals are not the daemon's.
  const child = spawn(path, args, { detached: true, stdio: ["ignore", "ignore", "ignore"], env: process.env });
  if (child.pid !== undefined) reaping.watch(child.pid);
  child.unref();
  return child;
}

const nodeState = (): string => spawnSync("sinfo", ["-h", "-N", "-o", "%t"], { encoding: "utf8", env: process.env }).stdout?.trim() ?? "";

interface Hooks {
  skip(message?: string): void;
  after(fn: () => unknown): void;
}

/**
 * The cluster for one spec file: reuses a running one named by SLURM_CONF, else starts its own
 * and stops it when `t` ends. Null (the test skipped, the reason shown) without Slurm, outside CI.
 */
export async function slurmCluster(t: Hooks): Promise<SlurmCluster | null> {
  const missing = BINARIES.filter((b) => !which(b));
  if (missing.length > 0) {
    const reason = `Slurm is not installed here (missing ${missing.join(", ")}); .ci/run installs it`;
    if (inCi()) throw new Error(`${reason}: CI must run the Slurm specs`);
    t.skip(reason);
    return null;
  }
  if (process.env.SLURM_CONF && /idle|mix|alloc/.test(nodeState())) {
    // A cluster someone else runs: its default partition is the one sinfo marks with `*`.
    const partitions = spawnSync("sinfo", ["-h", "-o", "%P"], { encoding: "utf8", env: process.env }).stdout ?? "";
    const marked = partitions.split("\n").find((p) => p.endsWith("*"));
    return { conf: process.env.SLURM_CONF, partition: marked ? marked.slice(0, -1) : "debug", dir: "" };
  }

  const dir = mkdtempSync(join(tmpdir(), "hubmcp-slurm-"));
  for (const sub of ["state", "spool"]) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, "munge.key"), randomBytes(1024), { mode: 0o400 });
  const ports = { ctld: await freePort(), d: await freePort() };
  const confPath = join(dir, "slurm.conf");
  writeFileSync(confPath, conf(dir, ports));
  const previous = process.env.SLURM_CONF;
  process.env.SLURM_CONF = confPath;

  const reaping = reaper(dir);
  t.after(async () => {
    await reaping.end();
    if (previous === undefined) delete process.env.SLURM_CONF;
    else process.env.SLURM_CONF = previous;
  });
  const munge = [
    `--key-file=${dir}/munge.key`,
    `--socket=${dir}/munge.socket`,
    `--pid-file=${dir}/munged.pid`,
    `--seed-file=${dir}/munged.seed`,
    `--log-file=${dir}/munged.log`,
  ];
  daemon(which("munged")!, ["-F", "--force", ...munge], reaping);
  await waitFor("munged's socket", () => existsSync(join(dir, "munge.socket")));
  daemon(which("slurmctld")!, ["-D"], reaping);
  daemon(which("slurmd")!, ["-D", "-N", "localhost"], reaping);
  try {
    await waitFor("the node to be idle in sinfo", () => nodeState() === "idle");
  } catch (err) {
    const tail = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8").split("\n").slice(-5).join("\n") : "");
    throw new Error(`${(err as Error).message}\nslurmctld.log:\n${tail("slurmctld.log")}\nslurmd.log:\n${tail("slurmd.log")}`);
  }
  return { conf: confPath, partition: "debug", dir };
}

/** The job's state in squeue, or null once Slurm no longer lists it. */
export function squeueState(jobId: string): string | null {
  const ran = spawnSync("squeue", ["-h", "-j", jobId, "-o", "%T"], { encoding: "utf8", env: process.env });
  const state = ran.status === 0 ? ran.stdout.trim() : "";
  return state === "" ? null : state;
}

export interface FailingSqueue {
  /** PATH with the stand-in first: give it to the code under test's environment. */
  path: string;
  /** From now on squeue exits 1 (as when the controller is away), or answers again. */
  failing(on: boolean): void;
  /** How many times squeue failed so far. */
  failures(): number;
  /** Resolves once squeue has failed `n` times in all (bounded). */
  failedAtLeast(n: number): Promise<void>;
}

/**
 * An `squeue` first on a PATH that runs the real one, or, while `failing(true)`, exits 1 the
 * way squeue does when it cannot reach slurmctld, counting its failures in a file. `dir` must
 * be readable by the accounts that run it.
 */
export function failingSqueue(dir: string): FailingSqueue {
  const real = which("squeue");
  if (!real) throw new Error("squeue is not installed");
  const flag = join(dir, "squeue-fails");
  const count = join(dir, "squeue-failures");
  writeFileSync(
    join(dir, "squeue"),
    `#!/bin/sh\nif [ -e ${flag} ]; then echo x >> ${count}; echo "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2; exit 1; fi\nexec ${real} "$@"\n`,
    { mode: 0o755 },
  );
  const failures = (): number => (existsSync(count) ? readFileSync(count, "utf8").split("\n").length - 1 : 0);
  return {
    path: `${dir}${delimiter}${process.env.PATH ?? ""}`,
    failing: (on) => (on ? writeFileSync(flag, "") : rmSync(flag, { force: true })),
    failures,
    failedAtLeast: (n) => waitFor(`squeue to fail ${n} times`, () => failures() >= n),
  };
}
