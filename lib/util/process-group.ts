// A child program in a process group of its own: stopping it reaches everything it started
// (a `bash -lc` wrapper's children, a tool's workers), stopping is bounded (SIGTERM, then
// SIGKILL after a grace period), and however this process ends, the group does not outlive it.
import { type ChildProcess, spawn, type StdioOptions } from "node:child_process";
import type { Readable, Writable } from "node:stream";

export interface ChildProcessHandle {
  readonly pid: number;
  /** Resolves with the exit code (null when killed by a signal; 127 when it could not start) once the process has ended. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the process has ended. Safe twice. */
  stop(graceMs?: number): Promise<void>;
  /** With `pipes`: the child's stdin and stdout, raw (a protocol runs over them); else null. */
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
}

export interface SpawnGroupOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Decoded stdout text as it arrives (stderr too, unless onStderr is given); without it the child shares this process's stdio. */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /** The child speaks a protocol on stdin/stdout: both are pipes handed back raw, stderr goes to onStderr. */
  pipes?: boolean;
}

export function spawnGroup(command: string, args: readonly string[], options: SpawnGroupOptions): ChildProcessHandle {
  const { onStdout, pipes } = options;
  const stdio: StdioOptions = pipes ? "pipe" : onStdout ? ["ignore", "pipe", "pipe"] : "inherit";
  const child: ChildProcess = spawn(command, [...args], { env: options.env, cwd: options.cwd, detached: true, stdio });
  if (pipes) child.stderr!.setEncoding("utf8").on("data", options.onStderr ?? (() => {}));
  else if (onStdout) {
    child.stdout!.setEncoding("utf8").on("data", onStdout);
    child.stderr!.setEncoding("utf8").on("data", options.onStderr ?? onStdout);
  }
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  // Last resort: however this process ends (a crash included), the detached group must not outlive it.
  const onParentExit = (): void => signalGroup("SIGTERM");
  process.once("exit", onParentExit);
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", () => (process.off("exit", onParentExit), resolve(127)));
    child.once("exit", (code) => (process.off("exit", onParentExit), resolve(code)));
  });
  let stopping: Promise<void> | null = null;
  return {
    pid: child.pid ?? -1,
    exited,
    stdin: pipes ? child.stdin : null,
    stdout: pipes ? child.stdout : null,
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
