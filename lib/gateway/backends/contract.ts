// What a backend is: the way one kind of revision (`app`, `rappture`, `url`, `command`,
// `slurm`) starts the tool server a person's tool session talks to. A backend is one file
// exporting a ToolBackend for its kind, and one line in ./index.ts's table; the table's type
// asks for a backend for every kind gateway.json can declare. start() gives the server's
// address (url, cookie), how to stop it, and `exited`, which tells the tool session the server
// ended on its own; nothing else of a backend is seen outside this folder.
import type { RevisionSpec } from "../config/gateway-config.ts";
import type { StateRoots } from "../hosting/state-dirs.ts";

export interface Backend {
  /** Where the tool server answers, with a trailing slash. */
  readonly url: string;
  /** Sent upstream as the Cookie header (a hub session proxy's credential). */
  readonly cookie?: string;
  /** For `app` revisions: the mount path the server strips, served by the gateway as the session proxy path. */
  readonly weberPrefix?: string;
  /** The process this gateway runs for it, if any. */
  readonly pid?: number;
  /** For `slurm` revisions: the batch job that is the session. */
  readonly jobId?: string;
  /** Resolves when the backend's process ends on its own; never for backends without one. */
  readonly exited: Promise<void>;
  stop(): Promise<void>;
}

export interface LaunchRequest {
  revision: RevisionSpec;
  user: string;
  tool: string;
  revisionName: string;
  /** Tool session id, also the session segment of the proxy path. */
  instance: string;
  publicUrl: string;
  startTimeoutMs: number;
  /** Where children's allowed variables are taken from (the gateway's environment by default). */
  env?: NodeJS.ProcessEnv;
  /** Where `app` and `slurm` sessions' state directories are kept. */
  stateRoots: StateRoots;
  /** Lines the child writes on stderr, for the gateway's log. */
  onOutput(line: string): void;
}

export type RevisionKind = RevisionSpec["kind"];
export type RevisionOf<K extends RevisionKind> = Extract<RevisionSpec, { kind: K }>;

/** One kind of revision's way to start a tool server. */
export interface ToolBackend<K extends RevisionKind> {
  readonly kind: K;
  /** Starts the server, or rejects with a ToolSessionLaunchError (its reason already given to `req.onOutput`). */
  start(req: LaunchRequest, revision: RevisionOf<K>): Promise<Backend>;
}

/** A tool session that could not be started, or did not become ready in time. */
export class ToolSessionLaunchError extends Error {
  constructor(
    readonly code: "HUBMCP_SESSION_NEVER_READY" | "HUBMCP_SESSION_LAUNCH_FAILED",
    message: string,
  ) {
    super(message);
  }
}

/** The `exited` of a backend whose server this gateway does not watch. */
export const NEVER: Promise<void> = new Promise<void>(() => {});

/** Why a launch failed, for the log: our errors' fixed texts, a system call's name and code (never its path or text). */
export function launchFailure(err: unknown): string {
  const { syscall, code, message } = (err ?? {}) as NodeJS.ErrnoException;
  if (typeof code === "string" && code.startsWith("HUBMCP_")) return message;
  return typeof syscall === "string" && typeof code === "string" ? `${syscall} failed with ${code}` : "an unexpected error";
}
