// The one Slurm client of lib/: sbatch, squeue and scancel for slurm.run (the tool-server
// side) and the gateway's `slurm` backend alike, through the one command runner
// (lib/util/run-command.ts: argv only, bounded in time and output, as another account when
// asked). Their stderr is kept out of errors: it may quote the job.
//
// The rule for a failed squeue, which both users follow: a job is gone only when squeue says
// so (it lists nothing, or answers "Invalid job id" for a job it has purged). Any other
// failure (a non-zero exit, a timeout, squeue missing, a controller away or restarting) is
// "unknown": asked again here a bounded number of times, then reported as `unknown`, which
// callers treat as "still there, ask again at the next look". A job is never taken for gone
// because the controller did not answer. sacct is not used: accounting may not be
// configured (it is not on a one-node cluster), and the job's end is squeue's to say.
import { onParentExit } from "../util/exit-registry.ts";
import { runCommand, runCommandSync, type CommandRun } from "../util/run-command.ts";
import { SlurmError } from "./error.ts";

/** Who runs the commands: the environment (PATH, SLURM_CONF) and, for a root gateway, the job's account. */
export interface SlurmCaller {
  env?: NodeJS.ProcessEnv;
  account?: { readonly uid: number; readonly gid: number } | null;
}

export type JobStatus =
  /** Slurm lists the job; `state` is squeue's %T (RUNNING, PENDING, COMPLETING…), `reason` its %r. */
  | { kind: "listed"; state: string; reason: string }
  /** Slurm no longer lists it. */
  | { kind: "gone" }
  /** squeue could not say (see the rule above); ask again later. */
  | { kind: "unknown" };

/** Bounded: a controller that does not answer must not hold a tool forever. */
const COMMAND_TIMEOUT_MS = 60_000;
/** One squeue try; its three tries together stay within one COMMAND_TIMEOUT_MS. */
const SQUEUE_TIMEOUT_MS = 20_000;
/** The pauses between squeue's tries in one look (so three tries) before the look is `unknown`. */
const RETRY_PAUSES_MS: readonly number[] = [200, 400];
/** States in which the job (and so a server it runs) is still there or about to be; COMPLETING is its end. */
const LIVE = new Set(["PENDING", "CONFIGURING", "RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING"]);

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

function slurm(command: string, args: readonly string[], as: SlurmCaller, timeoutMs = COMMAND_TIMEOUT_MS): Promise<CommandRun> {
  const account = as.account ? { uid: as.account.uid, gid: as.account.gid } : {};
  return runCommand(command, args, { env: as.env, timeoutMs, ...account });
}

/** True for a state in which the job has not begun to end. */
export function isLive(state: string): boolean {
  return LIVE.has(state);
}

/** The message of submit's SlurmError when there is no sbatch at all (a caller may word that case its own way). */
export const SBATCH_NOT_FOUND = "Slurm is not available here: sbatch was not found on PATH";

/** `sbatch --parsable …`: the new job's id; a SlurmError (HUBMCP_SLURM_SUBMIT) when there is none. */
export async function submit(args: readonly string[], as: SlurmCaller): Promise<string> {
  const ran = await slurm("sbatch", ["--parsable", ...args], as);
  if (ran.failure === "HUBMCP_COMMAND_NOT_FOUND") throw new SlurmError("HUBMCP_SLURM_SUBMIT", SBATCH_NOT_FOUND);
  // --parsable prints `id` or `id;cluster`.
  const id = /^(\d+)(?:;\S+)?\s*$/.exec(ran.stdout)?.[1];
  if (ran.code !== 0 || !id)
    throw new SlurmError("HUBMCP_SLURM_SUBMIT", "Slurm refused the job (sbatch failed; see the scheduler's limits and the options given)");
  return id;
}

/**
 * squeue about one job, asked again after each pause while it fails without an answer; null
 * when it never answered, "gone" when it said it no longer knows the id (purged after MinJobAge).
 */
async function squeue(jobId: string, format: string, as: SlurmCaller): Promise<{ listed: string } | "gone" | null> {
  for (let attempt = 0; ; attempt++) {
    const ran = await slurm("squeue", ["-h", "-j", jobId, "-o", format], as, SQUEUE_TIMEOUT_MS);
    if (ran.code === 0) return { listed: ran.stdout.trim() };
    if (ran.code !== null && /invalid job id/i.test(ran.stderr)) return "gone";
    if (attempt >= RETRY_PAUSES_MS.length) return null;
    await pause(RETRY_PAUSES_MS[attempt]!);
  }
}

/** What squeue says of the job, by the rule above. */
export async function jobStatus(jobId: string, as: SlurmCaller): Promise<JobStatus> {
  const answer = await squeue(jobId, "%T %r", as);
  if (answer === null) return { kind: "unknown" };
  const [state = "", reason = ""] = answer === "gone" ? [] : answer.listed.split(/\s+/, 2);
  return state === "" ? { kind: "gone" } : { kind: "listed", state, reason };
}

/** The node running the job's batch script, as the controller names it (not the job's word); "" when squeue cannot say. */
export async function batchHost(jobId: string, as: SlurmCaller): Promise<string> {
  const answer = await squeue(jobId, "%B", as);
  return answer === null || answer === "gone" ? "" : answer.listed;
}

export async function cancel(jobId: string, as: SlurmCaller): Promise<void> {
  await slurm("scancel", [jobId], as);
}

/**
 * Cancels the job (as `as`) and waits, at most `withinMs`, until Slurm no longer lists it, so its
 * processes (a server's port) are gone. Any listing counts as still there (a cancelled job
 * can read CANCELLED a moment before COMPLETING), and so does `unknown`; squeue runs as `look`.
 * True when it left.
 */
export async function cancelAndWait(jobId: string, as: SlurmCaller, look: SlurmCaller = as, withinMs = 30_000, pollMs = 200): Promise<boolean> {
  await cancel(jobId, as);
  for (const until = Date.now() + withinMs; Date.now() < until; await pause(pollMs)) {
    if ((await jobStatus(jobId, look)).kind === "gone") return true;
  }
  return false;
}

/** However this process ends, the job is cancelled (synchronously: ../util/exit-registry.ts). Returns the unregistering function. */
export function cancelAtExit(jobId: string, as: SlurmCaller): () => void {
  const account = as.account ? { uid: as.account.uid, gid: as.account.gid } : {};
  return onParentExit(() => void runCommandSync("scancel", [jobId], { env: as.env, timeoutMs: 10_000, ...account }));
}
