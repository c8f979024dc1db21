// A `slurm` revision: each tool session is one batch job running start_mcp on whichever node
// Slurm picks. The job's script `exec`s the server (a process left behind would escape
// scancel under plain process tracking), bound to the node's own address with the
// per-session secret required; its ready line (lib/util/ready-line.ts) lands in the job's output file, in a
// per-session folder under `workdir` (0700, the session account's) that gateway and nodes
// both see. sbatch and scancel run as the session's account: Slurm then knows whose job it
// is, and a root gateway never submits root jobs. The job is the session: while Slurm lists
// it the session lives, and its end is the session's end.
import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SECRET_COOKIE, SECRET_FILE_ENV } from "../../http/session-secret.ts";
import { batchHost, cancelAndWait, cancelAtExit, isLive, jobStatus, SBATCH_NOT_FOUND, submit, type JobStatus, type SlurmCaller } from "../../slurm/client.ts";
import { SlurmError } from "../../slurm/error.ts";
import { OutputFollower } from "../../slurm/job-files.ts";
import { parseReadyLine } from "../../util/ready-line.ts";
import { refuseJobAddress } from "../hosting/ready-address.ts";
import { childEnv } from "../hosting/run-as.ts";
import { servedFile, type Served } from "../config/served-settings.ts";
import { toolSessionStateDir } from "../hosting/state-dirs.ts";
import { accountFor } from "./child.ts";
import { ToolSessionLaunchError, type Backend, type LaunchRequest, type RevisionOf, type ToolBackend } from "./contract.ts";
import { launcherCommand } from "./start-mcp.ts";

/** Polling while a job starts, and while it runs (one squeue per session). */
const START_POLL_MS = 250;
const WATCH_POLL_MS = 1000;

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
/** Only the watch of a running job lets the gateway exit meanwhile; a stop under way must finish first. */
const pause = (ms: number, hold = true): Promise<void> =>
  new Promise((done) => {
    const timer = setTimeout(done, ms);
    if (!hold) timer.unref();
  });

/**
 * Whether the job has ended as a session: gone from squeue, or COMPLETING (its processes are
 * ending), or in a final state. `unknown` (squeue failing, lib/slurm/client.ts's rule) is not an end.
 */
const ended = (status: JobStatus): boolean => status.kind === "gone" || (status.kind === "listed" && !isLive(status.state));

function jobScript(launcher: readonly string[], served: Served, stateDir: string): string {
  const { key, file } = servedFile(served);
  const argv = [...launcher, `--${key}`, file].map(quote).join(" ");
  return `#!/bin/sh
# Written by hub_gateway: this job is one tool session. The server is exec'd, so scancel reaches it.
set -- $(getent ahostsv4 "\${SLURMD_NODENAME:-$(hostname)}")
[ -n "$1" ] || { echo "hub_gateway: this node's name does not resolve to an IPv4 address" >&2; exit 1; }
exec ${argv} --host "$1" --port 0 --ready-line --state-dir ${quote(stateDir)}
`;
}

const failed = (message: string): ToolSessionLaunchError => new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", message);

async function startJob(req: LaunchRequest, revision: RevisionOf<"slurm">): Promise<Backend> {
  const spec = revision.slurm;
  const account = await accountFor(req, revision.runAs);
  // Where any account may rename entries, another could swap a session's folder for its own.
  const shared = await stat(spec.workdir).catch(() => undefined);
  if (!shared?.isDirectory() || ((shared.mode & 0o002) !== 0 && (shared.mode & 0o1000) === 0)) {
    req.onOutput("the slurm revision's workdir is missing, or writable by every account without the sticky bit");
    throw failed("the slurm revision's workdir is not usable");
  }
  const stateDir = await toolSessionStateDir(await req.stateRoots.root({ kind: "slurm", parent: spec.workdir }), req.user, req.tool, req.revisionName, account);
  const dir = await mkdtemp(join(spec.workdir, ".hubmcp-session-"));
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const secret = randomBytes(32).toString("base64url");
  // sbatch passes its environment on to the job: the tool's allowed variables, and where the controller is.
  const env = childEnv(req.env ?? process.env, [...(revision.env ?? []), "SLURM_CONF"], account, {
    [SECRET_FILE_ENV]: join(dir, "secret"),
    HUB_USER: req.user,
    HUB_TOOL: req.tool,
    HUB_REVISION: req.revisionName,
    HUB_SESSION: req.instance,
  });
  // sbatch and scancel as the session's account; squeue as the gateway (any account may look).
  const asJob: SlurmCaller = { env, account };
  const asGateway: SlurmCaller = { env };
  const args = [
    `--job-name=hubmcp-${req.tool}`,
    `--chdir=${dir}`,
    `--output=${join(dir, "output")}`,
    ...(spec.partition ? [`--partition=${spec.partition}`] : []),
    ...(spec.time ? [`--time=${spec.time}`] : []),
    ...spec.sbatch,
    join(dir, "job.sh"),
  ];
  let jobId: string;
  try {
    if (account) await chown(dir, account.uid, account.gid);
    for (const [name, text, mode] of [
      ["secret", secret, 0o600],
      ["job.sh", jobScript(launcherCommand(true), spec, stateDir), 0o700],
    ] as const) {
      await writeFile(join(dir, name), text, { mode });
      if (account) await chown(join(dir, name), account.uid, account.gid);
    }
    jobId = await submit(args, asJob);
  } catch (err) {
    await cleanup();
    if (!(err instanceof SlurmError)) throw err;
    req.onOutput(
      err.message === SBATCH_NOT_FOUND
        ? "sbatch was not found on PATH"
        : "sbatch refused the tool session's job (see the revision's partition, time and sbatch options)",
    );
    throw failed("the Slurm job could not be submitted");
  }
  // However the gateway ends, the jobs it submitted must not outlive it.
  const forget = cancelAtExit(jobId, asJob);
  let gone = false;
  const cancel = async (): Promise<void> => {
    await cancelAndWait(jobId, asJob, asGateway);
    gone = true;
    forget();
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
  for (;;) {
    read();
    if (url !== undefined) break;
    const status = await jobStatus(jobId, asGateway);
    if (ended(status)) {
      read();
      await cancel();
      throw failed("the Slurm job ended before its tool server was ready");
    }
    if (Date.now() > deadline) {
      const seconds = Math.round(req.startTimeoutMs / 1000);
      const pending = status.kind === "listed" && status.state === "PENDING" ? status.reason : undefined;
      req.onOutput(`Slurm job ${jobId} ${pending !== undefined ? `still pending (reason ${pending})` : "not ready"} after ${seconds} s: cancelled`);
      await cancel();
      throw new ToolSessionLaunchError("HUBMCP_SESSION_NEVER_READY", `the Slurm job was not ready within ${seconds} s`);
    }
    await pause(START_POLL_MS);
  }
  const refused = await refuseJobAddress(url, await batchHost(jobId, asGateway), secret);
  if (refused) {
    req.onOutput(`Slurm job ${jobId}: ${refused}`);
    await cancel();
    throw failed("the Slurm job's ready line was refused");
  }

  let stopping: Promise<void> | undefined;
  const exited = (async () => {
    for (;;) {
      await pause(WATCH_POLL_MS, false);
      if (gone) return;
      read();
      if (ended(await jobStatus(jobId, asGateway))) break;
    }
    // Ended on its own (time limit, preemption, an admin's scancel), unless a stop is under way.
    if (stopping) return stopping;
    forget();
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

export const slurm: ToolBackend<"slurm"> = { kind: "slurm", start: startJob };
