// A `slurm` revision: each tool session is one batch job running start_mcp on whichever node
// Slurm picks. The job's script `exec`s the server (a process left behind would escape
// scancel under plain process tracking), bound to the node's own address with the
// per-session secret required; its ready line (lib/util/ready-line.ts) lands in the job's output file, in a
// per-session folder under `workdir` (0700, the session account's) that gateway and nodes
// both see. sbatch and scancel run as the session's account: Slurm then knows whose job it
// is, and a root gateway never submits root jobs. The job is the session: while Slurm lists
// it the session lives, and its end is the session's end.
import { spawnSync, execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { servedFile, type Served, type SlurmRevision } from "./served-settings.ts";
import { refuseJobAddress } from "./ready-address.ts";
import { childEnv, type Account } from "./run-as.ts";
import { sessionStateDir, type StateRoots } from "./state-dirs.ts";
import { SECRET_COOKIE, SECRET_FILE_ENV } from "../http/session-secret.ts";
import { OutputFollower } from "../slurm/job-files.ts";
import { parseReadyLine } from "../util/ready-line.ts";

/** What of a launch request a Slurm session needs (launch.ts's LaunchRequest has it all). */
export interface SlurmLaunch {
  user: string;
  tool: string;
  revisionName: string;
  instance: string;
  startTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
  stateRoots: StateRoots;
  onOutput(line: string): void;
}

export interface SlurmHow {
  /** argv that runs start_mcp (node, its loader, the CLI), the same on the nodes. */
  launcher: readonly string[];
  /** The gateway's variables the tool may see. */
  allow: readonly string[];
  fail(code: "HUBMCP_SESSION_NEVER_READY" | "HUBMCP_SESSION_LAUNCH_FAILED", message: string): Error;
}

export interface SlurmBackend {
  readonly url: string;
  readonly cookie: string;
  readonly jobId: string;
  readonly exited: Promise<void>;
  stop(): Promise<void>;
}

/** Polling while a job starts, and while it runs (one squeue per session). */
const START_POLL_MS = 250;
const WATCH_POLL_MS = 1000;
const COMMAND_TIMEOUT_MS = 60_000;
/** States in which the job (and so the server) is still there or about to be; COMPLETING is its end. */
const ALIVE = new Set(["PENDING", "CONFIGURING", "RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING"]);

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
/** Only the watch of a running job lets the gateway exit meanwhile; a stop under way must finish first. */
const pause = (ms: number, hold = true): Promise<void> =>
  new Promise((done) => {
    const timer = setTimeout(done, ms);
    if (!hold) timer.unref();
  });

interface Ran {
  ok: boolean;
  stdout: string;
  stderr: string;
  errno?: string;
}

/** A Slurm command without a shell, as `account` when given; its output is never put in errors (it may quote the job). */
function slurm(command: string, args: readonly string[], env: NodeJS.ProcessEnv, account: Account | null): Promise<Ran> {
  const as = account ? { uid: account.uid, gid: account.gid } : {};
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 1 << 20, ...as }, (err, stdout, stderr) => {
      const errno = err && typeof (err as NodeJS.ErrnoException).code === "string" ? ((err as NodeJS.ErrnoException).code as string) : undefined;
      resolve({ ok: !err, stdout, stderr, ...(errno ? { errno } : {}) });
    });
  });
}

/**
 * `{state, reason}` while Slurm lists the job (COMPLETING included: its processes may still be
 * ending), null once it has ended, undefined when squeue cannot say (a controller away).
 */
async function jobStatus(jobId: string, env: NodeJS.ProcessEnv, anyState = false): Promise<{ state: string; reason: string } | null | undefined> {
  const ran = await slurm("squeue", ["-h", "-j", jobId, "-o", "%T %r"], env, null);
  if (!ran.ok) return /invalid job id/i.test(ran.stderr) ? null : undefined;
  const [state = "", reason = ""] = ran.stdout.trim().split(/\s+/, 2);
  if (state === "") return null;
  return anyState || ALIVE.has(state) || state === "COMPLETING" ? { state, reason } : null;
}

/** The node running the job's batch script, as the controller names it (not the job's word). */
async function batchHost(jobId: string, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await slurm("squeue", ["-h", "-j", jobId, "-o", "%B"], env, null);
  return ran.ok ? ran.stdout.trim() : "";
}

// However the gateway ends, the jobs it submitted must not outlive it: an exit hook can only
// run synchronous work, so it cancels them with spawnSync, one scancel per account.
const LIVE = new Map<string, { account: Account | null; env: NodeJS.ProcessEnv }>();
process.once("exit", () => {
  for (const [jobId, { account, env }] of LIVE) {
    spawnSync("scancel", [jobId], { env, timeout: 10_000, stdio: "ignore", ...(account ? { uid: account.uid, gid: account.gid } : {}) });
  }
});

function jobScript(how: SlurmHow, served: Served, stateDir: string): string {
  const { key, file } = servedFile(served);
  const argv = [...how.launcher, `--${key}`, file].map(quote).join(" ");
  return `#!/bin/sh
# Written by hub_gateway: this job is one tool session. The server is exec'd, so scancel reaches it.
set -- $(getent ahostsv4 "\${SLURMD_NODENAME:-$(hostname)}")
[ -n "$1" ] || { echo "hub_gateway: this node's name does not resolve to an IPv4 address" >&2; exit 1; }
exec ${argv} --host "$1" --port 0 --ready-line --state-dir ${quote(stateDir)}
`;
}

export async function launchSlurm(req: SlurmLaunch, spec: SlurmRevision, account: Account | null, how: SlurmHow): Promise<SlurmBackend> {
  // Where any account may rename entries, another could swap a session's folder for its own.
  const shared = await stat(spec.workdir).catch(() => undefined);
  if (!shared?.isDirectory() || ((shared.mode & 0o002) !== 0 && (shared.mode & 0o1000) === 0)) {
    req.onOutput("the slurm revision's workdir is missing, or writable by every account without the sticky bit");
    throw how.fail("HUBMCP_SESSION_LAUNCH_FAILED", "the slurm revision's workdir is not usable");
  }
  const stateDir = await sessionStateDir(await req.stateRoots.root({ kind: "slurm", parent: spec.workdir }), req.user, req.tool, req.revisionName, account);
  const dir = await mkdtemp(join(spec.workdir, ".hubmcp-session-"));
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const secret = randomBytes(32).toString("base64url");
  const base = req.env ?? process.env;
  // sbatch passes its environment on to the job: the tool's allowed variables, and where the controller is.
  const env = childEnv(base, [...how.allow, "SLURM_CONF"], account, {
    [SECRET_FILE_ENV]: join(dir, "secret"),
    HUB_USER: req.user,
    HUB_TOOL: req.tool,
    HUB_REVISION: req.revisionName,
    HUB_SESSION: req.instance,
  });
  const script = join(dir, "job.sh");
  const args = [
    "--parsable",
    `--job-name=hubmcp-${req.tool}`,
    `--chdir=${dir}`,
    `--output=${join(dir, "output")}`,
    ...(spec.partition ? [`--partition=${spec.partition}`] : []),
    ...(spec.time ? [`--time=${spec.time}`] : []),
    ...spec.sbatch,
    script,
  ];
  let jobId: string;
  try {
    if (account) await chown(dir, account.uid, account.gid);
    for (const [name, text, mode] of [
      ["secret", secret, 0o600],
      ["job.sh", jobScript(how, spec, stateDir), 0o700],
    ] as const) {
      await writeFile(join(dir, name), text, { mode });
      if (account) await chown(join(dir, name), account.uid, account.gid);
    }
    const ran = await slurm("sbatch", args, env, account);
    const id = /^(\d+)(?:;\S+)?\s*$/.exec(ran.stdout)?.[1];
    if (!ran.ok || !id) {
      req.onOutput(
        ran.errno === "ENOENT"
          ? "sbatch was not found on PATH"
          : "sbatch refused the tool session's job (see the revision's partition, time and sbatch options)",
      );
      throw how.fail("HUBMCP_SESSION_LAUNCH_FAILED", "the Slurm job could not be submitted");
    }
    jobId = id;
  } catch (err) {
    await cleanup();
    throw err;
  }
  LIVE.set(jobId, { account, env });
  let gone = false;
  const cancel = async (): Promise<void> => {
    await slurm("scancel", [jobId], env, account);
    // Gone from squeue (or past its own bound): the server's port is closed. A cancelled job
    // can read CANCELLED a moment before COMPLETING, so any listing counts as still there.
    for (let i = 0; i < 150 && (await jobStatus(jobId, env, true)) !== null; i++) await pause(200);
    gone = true;
    LIVE.delete(jobId);
    await cleanup();
  };

  const follower = new OutputFollower(join(dir, "output"));
  let url: string | undefined;
  const read = (): void =>
    follower.poll((line) => {
      const ready = url === undefined ? parseReadyLine(line) : null;
      if (ready) url = ready.url;
      else if (line.trim() !== "") req.onOutput(line);
    });
  const deadline = Date.now() + req.startTimeoutMs;
  let status: Awaited<ReturnType<typeof jobStatus>>;
  for (;;) {
    read();
    if (url !== undefined) break;
    status = await jobStatus(jobId, env);
    if (status === null || status?.state === "COMPLETING") {
      read();
      await cancel();
      throw how.fail("HUBMCP_SESSION_LAUNCH_FAILED", "the Slurm job ended before its tool server was ready");
    }
    if (Date.now() > deadline) {
      const seconds = Math.round(req.startTimeoutMs / 1000);
      const pending = status?.state === "PENDING";
      req.onOutput(`Slurm job ${jobId} ${pending ? `still pending (reason ${status!.reason})` : "not ready"} after ${seconds} s: cancelled`);
      await cancel();
      throw how.fail("HUBMCP_SESSION_NEVER_READY", `the Slurm job was not ready within ${seconds} s`);
    }
    await pause(START_POLL_MS);
  }
  const refused = await refuseJobAddress(url, await batchHost(jobId, env), secret);
  if (refused) {
    req.onOutput(`Slurm job ${jobId}: ${refused}`);
    await cancel();
    throw how.fail("HUBMCP_SESSION_LAUNCH_FAILED", "the Slurm job's ready line was refused");
  }

  let stopping: Promise<void> | undefined;
  const exited = (async () => {
    for (;;) {
      await pause(WATCH_POLL_MS, false);
      if (gone) return;
      read();
      const now = await jobStatus(jobId, env);
      if (now === null || now?.state === "COMPLETING") break;
    }
    // Ended on its own (time limit, preemption, an admin's scancel), unless a stop is under way.
    if (stopping) return stopping;
    LIVE.delete(jobId);
    await cleanup();
  })();
  return {
    url,
    cookie: `${SECRET_COOKIE}=${secret}`,
    jobId,
    exited,
    stop: () => (stopping ??= cancel()),
  };
}
