// The error slurm.run throws, and the gateway's Slurm backend words its own from
// (public: `import { SlurmError } from "hubmcp"`).

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
