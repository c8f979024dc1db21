// The external reverse proxy as a child process: its own process group, so stopping it
// reaches everything `bash -lc` started, and a bounded stop that ends in SIGKILL.
import { spawn } from "node:child_process";
import { connect } from "node:net";

export interface ChildProcessHandle {
  readonly pid: number;
  /** Resolves with the exit code (or null when killed by a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the process has ended. Safe twice. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnGroup(command: string, args: readonly string[], env: NodeJS.ProcessEnv, onOutput: (text: string) => void): ChildProcessHandle {
  const child = spawn(command, [...args], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.setEncoding("utf8").on("data", onOutput);
  child.stderr.setEncoding("utf8").on("data", onOutput);
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

function tryConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Polls until something accepts on 127.0.0.1:port; false if `gone` settles first or time runs out. */
export async function waitForPort(port: number, gone: Promise<unknown>, timeoutMs = 15_000, intervalMs = 50): Promise<boolean> {
  let ended = false;
  void gone.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  while (!ended && Date.now() < deadline) {
    if (await tryConnect(port)) return true;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
  return false;
}
