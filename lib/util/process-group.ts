// A child program in a process group of its own: stopping it reaches everything it started
// (a `bash -lc` wrapper's children, a tool's workers), stopping is bounded (SIGTERM, then
// SIGKILL after a grace period), and however this process ends, the group does not outlive it
// (./exit-registry.ts). Optionally as another account (uid/gid). The one place lib/ starts a
// long-lived child; ./run-command.ts runs a command to its end on top of it.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { onParentExit } from "./exit-registry.ts";

export interface ChildProcessHandle {
  /** -1 when the program could not be started. */
  readonly pid: number;
  /** Resolves with the exit code (null when killed by a signal; 127 when it could not start) once the process has ended. */
  readonly exited: Promise<number | null>;
  /** The errno (ENOENT, EACCES, EPERM…) when the program could not be started; set once `exited` resolved. */
  readonly startError: string | undefined;
  /** The child's stdout and stderr when `output` is "pipe" or a handler is given; null when it shares this process's. */
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Sends a signal to the whole group (nothing when it has ended). */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the process has ended. Safe twice. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnGroupOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this account (needs root or CAP_SETUID/CAP_SETGID). */
  uid?: number;
  gid?: number;
  /** "pipe": stdout and stderr readable on the handle; "inherit" (the default without handlers): this process's stdio. */
  output?: "pipe" | "inherit";
  /** Decoded stdout text as it arrives (stderr too, unless onStderr is given); implies "pipe". */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
}

export function spawnGroup(command: string, args: readonly string[], options: SpawnGroupOptions): ChildProcessHandle {
  const { onStdout } = options;
  const piped = onStdout !== undefined || options.output === "pipe";
  const as = options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {};
  const child = spawn(command, [...args], { env: options.env, cwd: options.cwd, detached: true, stdio: piped ? ["ignore", "pipe", "pipe"] : "inherit", ...as });
  if (onStdout) {
    child.stdout!.setEncoding("utf8").on("data", onStdout);
    child.stderr!.setEncoding("utf8").on("data", options.onStderr ?? onStdout);
  }
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const forget = onParentExit(() => signalGroup("SIGTERM"));
  let startError: string | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      startError = typeof err.code === "string" ? err.code : "ESPAWN";
      forget();
      resolve(127);
    });
    child.once("exit", (code) => (forget(), resolve(code)));
  });
  let stopping: Promise<void> | null = null;
  return {
    pid: child.pid ?? -1,
    exited,
    get startError() {
      return startError;
    },
    stdout: piped ? child.stdout : null,
    stderr: piped ? child.stderr : null,
    signal: signalGroup,
    stop(graceMs = 3_000) {
      return (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
        signalGroup("SIGTERM");
        let timer: NodeJS.Timeout | undefined;
        const forced = new Promise<void>((done) => (timer = setTimeout(() => (signalGroup("SIGKILL"), done()), graceMs)));
        await Promise.race([exited, forced]);
        clearTimeout(timer);
        await exited;
      })());
    },
  };
}
