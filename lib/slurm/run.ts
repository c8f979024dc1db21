// slurm.run: a tool runs a command as its own Slurm batch job and follows it. The job id is
// the run's durable handle (ctx.setTaskMetadata), lines `PROGRESS <done>[/<total>] [message]`
// in the job's output become progress notifications, the tool's cancellation cancels the job
// (scancel), and the call returns once the command has ended.
import { resolve } from "node:path";
import type { ToolContext } from "../mcp/context.ts";
import { traceEnv } from "../util/trace-context.ts";
import { cancelAndWait, jobStatus, submit, type SlurmCaller } from "./client.ts";
import { SlurmError } from "./error.ts";
import { makeJobFiles, OutputFollower, PROGRESS_LINE, readExit, readOutput, removeJobFiles, type JobFiles } from "./job-files.ts";

export interface SlurmRunOptions {
  /** The program and its arguments, run as the job (no shell). Give this or `script`. */
  command?: readonly string[];
  /** A batch script's text, run as the job: with its own `#!` line, or by /bin/sh. */
  script?: string;
  /** `--partition`; the cluster's default partition when unset. */
  partition?: string;
  /** `--time` (e.g. "01:00:00"); the partition's default limit when unset. */
  time?: string;
  /** Further sbatch options, one per entry, e.g. ["--mem=2G", "--cpus-per-task=4"]. */
  sbatch?: readonly string[];
  /** The job's working folder, which compute nodes must see; the tool server's by default. The job's files live in a private folder inside it. */
  workdir?: string;
  /** `--job-name`; "hubmcp" by default. */
  name?: string;
  /** How often the job is looked at, in ms; 1000 by default. */
  pollMs?: number;
  /** Environment of the Slurm commands (and so of the job: sbatch exports it); this process's by default. TRACEPARENT/TRACESTATE are set from the call's trace context. */
  env?: NodeJS.ProcessEnv;
  /** Keep the job's folder (script, output, exit status) after it ends; false by default. */
  keepFiles?: boolean;
}

export interface SlurmRunResult {
  jobId: string;
  exitCode: number;
  /** What the job wrote on stdout and stderr (its last MiB). */
  output: string;
}

/** What slurm.run uses of a tool's context. */
export type SlurmContext = Pick<ToolContext, "signal" | "reportProgress" | "setTaskMetadata"> & Partial<Pick<ToolContext, "trace">>;

/** The handle slurm.run attaches to the run, under `_meta["io.hubmcp/handle"]`. */
export interface SlurmHandle {
  scheduler: "slurm";
  jobId: string;
}

const bad = (message: string): SlurmError => new SlurmError("HUBMCP_SLURM_OPTIONS", `slurm.run: ${message}`);

function sbatchArgs(options: SlurmRunOptions, files: JobFiles, workdir: string): string[] {
  const args = [`--job-name=${options.name ?? "hubmcp"}`, `--output=${files.output}`, `--chdir=${workdir}`];
  if (options.partition !== undefined) args.push(`--partition=${options.partition}`);
  if (options.time !== undefined) args.push(`--time=${options.time}`);
  return [...args, ...(options.sbatch ?? []), files.script, ...(options.command ?? [])];
}

function check(options: SlurmRunOptions): void {
  const hasCommand = options.command !== undefined;
  if (hasCommand === (options.script !== undefined)) throw bad("give exactly one of command and script");
  if (hasCommand && (!Array.isArray(options.command) || options.command.length === 0 || !options.command.every((a) => typeof a === "string"))) {
    throw bad("command must be a non-empty array of strings");
  }
  if (!hasCommand && typeof options.script !== "string") throw bad("script must be a string");
  for (const key of ["partition", "time", "name", "workdir"] as const) {
    const v = options[key];
    if (v !== undefined && (typeof v !== "string" || v === "" || /[\n\0]/.test(v))) throw bad(`${key} must be a non-empty single-line string`);
  }
  if (options.sbatch !== undefined && (!Array.isArray(options.sbatch) || !options.sbatch.every((a) => typeof a === "string" && a.startsWith("-")))) {
    throw bad("sbatch must be an array of options, each starting with -");
  }
  if (options.pollMs !== undefined && !(Number.isFinite(options.pollMs) && options.pollMs >= 10)) throw bad("pollMs must be a number of at least 10");
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      done();
    }
    signal.addEventListener("abort", finish, { once: true });
  });
}

/** Runs the command as a Slurm job and follows it to its end; see SlurmRunOptions. */
export async function run(ctx: SlurmContext, options: SlurmRunOptions): Promise<SlurmRunResult> {
  check(options);
  // sbatch exports its environment to the job, so the job's TRACEPARENT continues this call's span.
  const env = ctx.trace ? traceEnv(options.env ?? process.env, ctx.trace) : options.env;
  const workdir = resolve(options.workdir ?? process.cwd());
  let files: JobFiles;
  try {
    files = makeJobFiles(workdir, options.command !== undefined ? { command: options.command } : { script: options.script! });
  } catch (err) {
    throw new SlurmError("HUBMCP_SLURM_OPTIONS", "slurm.run: workdir must be an existing folder this process can write", { cause: err });
  }
  try {
    const jobId = await submit(sbatchArgs(options, files, workdir), { env });
    ctx.setTaskMetadata({ scheduler: "slurm", jobId } satisfies SlurmHandle);
    const exitCode = await follow(ctx, jobId, files, options.pollMs ?? 1000, { env });
    const output = readOutput(files);
    if (exitCode !== 0) throw new SlurmError("HUBMCP_SLURM_FAILED", `Slurm job ${jobId} exited with status ${exitCode}`, { jobId, exitCode });
    return { jobId, exitCode, output };
  } finally {
    if (!options.keepFiles) removeJobFiles(files);
  }
}

async function follow(ctx: SlurmContext, jobId: string, files: JobFiles, pollMs: number, as: SlurmCaller): Promise<number> {
  const follower = new OutputFollower(files.output);
  const progress = (line: string): void => {
    const m = PROGRESS_LINE.exec(line);
    if (m) ctx.reportProgress(Number(m[1]), m[2] === undefined ? undefined : Number(m[2]), m[3] || undefined);
  };
  for (;;) {
    if (ctx.signal.aborted) {
      // Its processes are gone when the tool's run ends (or the wait's bound has passed).
      await cancelAndWait(jobId, as);
      throw new SlurmError("HUBMCP_SLURM_CANCELLED", `Slurm job ${jobId} was cancelled with its tool call`, { jobId });
    }
    follower.poll(progress);
    const exit = readExit(files);
    if (exit !== null) return exit;
    // Only a job squeue says is gone is lost; `unknown` (squeue failing) is asked again at the next look.
    if ((await jobStatus(jobId, as)).kind === "gone") {
      // The exit status may have landed between the two looks.
      const late = readExit(files);
      follower.poll(progress);
      if (late !== null) return late;
      throw new SlurmError("HUBMCP_SLURM_LOST", `Slurm job ${jobId} ended before its command finished (time limit, preemption or scancel)`, { jobId });
    }
    await pause(pollMs, ctx.signal);
  }
}
