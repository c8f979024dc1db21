// The three Slurm commands a tool's job needs, run without a shell (options are argv
// entries, never parsed by one). Their stderr is kept out of errors: it may quote the job.
import { execFile } from "node:child_process";

export type SlurmErrorCode =
  /** sbatch refused the job or is missing (not on PATH, no controller). */
  | "HUBMCP_SLURM_SUBMIT"
  /** The job's command exited with a non-zero status; `exitCode` says which. */
  | "HUBMCP_SLURM_FAILED"
  /** The tool's run was cancelled and the job with it (scancel). */
  | "HUBMCP_SLURM_CANCELLED"
  /** The job left the queue without finishing its command: time limit, preemption, an admin's scancel. */
  | "HUBMCP_SLURM_LOST"
  /** The options given to slurm.run are not usable. */
  | "HUBMCP_SLURM_OPTIONS";

export class SlurmError extends Error {
  readonly code: SlurmErrorCode;
  /** The Slurm job id, once submitted. */
  readonly jobId: string | undefined;
  /** The command's exit status, for HUBMCP_SLURM_FAILED. */
  readonly exitCode: number | undefined;
  constructor(code: SlurmErrorCode, message: string, more: { jobId?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: more.cause });
    this.name = "SlurmError";
    this.code = code;
    this.jobId = more.jobId;
    this.exitCode = more.exitCode;
  }
}

interface Ran {
  ok: boolean;
  stdout: string;
  /** ENOENT when the command is not installed. */
  errno?: string;
}

/** Bounded: a controller that does not answer must not hold a tool forever. */
const COMMAND_TIMEOUT_MS = 60_000;

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv | undefined): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (!err) return resolve({ ok: true, stdout });
      const errno = typeof (err as NodeJS.ErrnoException).code === "string" ? ((err as NodeJS.ErrnoException).code as string) : undefined;
      resolve({ ok: false, stdout, errno });
    });
  });
}

/** `sbatch --parsable …`: the new job's id. */
export async function submit(args: readonly string[], env: NodeJS.ProcessEnv | undefined): Promise<string> {
  const ran = await run("sbatch", ["--parsable", ...args], env);
  if (ran.errno === "ENOENT") throw new SlurmError("HUBMCP_SLURM_SUBMIT", "Slurm is not available here: sbatch was not found on PATH");
  // --parsable prints `id` or `id;cluster`.
  const id = /^(\d+)(?:;\S+)?\s*$/.exec(ran.stdout)?.[1];
  if (!ran.ok || !id) throw new SlurmError("HUBMCP_SLURM_SUBMIT", "Slurm refused the job (sbatch failed; see the scheduler's limits and the options given)");
  return id;
}

/** The job's state (`RUNNING`, `PENDING`, …) or null once Slurm no longer lists it. */
export async function jobState(jobId: string, env: NodeJS.ProcessEnv | undefined): Promise<string | null> {
  const ran = await run("squeue", ["-h", "-j", jobId, "-o", "%T"], env);
  // squeue fails on an id it has purged ("Invalid job id"): gone, like an empty listing.
  const state = ran.ok ? ran.stdout.trim() : "";
  return state === "" ? null : state;
}

export async function cancel(jobId: string, env: NodeJS.ProcessEnv | undefined): Promise<void> {
  await run("scancel", [jobId], env);
}
