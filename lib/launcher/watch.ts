// `start_mcp --watch`, for developing a tool: the app is served by a child start_mcp (the same
// command without --watch), started again whenever a file under the app's folder changes.
// A restart is a new process, so every module is loaded afresh (Node cannot unload ES
// modules). Clients lose their sessions and start new ones: the official SDKs and the tool
// console do this on their own (404 on the old session id). A child that fails to load waits
// for the next change rather than ending the watch.
import { spawn, type ChildProcess } from "node:child_process";
import { watch, type FSWatcher } from "node:fs";
import { WATCHED_CHILD_ENV } from "../util/cli-entry.ts";

export interface WatchIo {
  err(line: string): void;
  stopRequested: Promise<string>;
}

/** Changes closer together than this are one restart (an editor writes a file in several steps). */
const SETTLE_MS = 150;

/** Paths that change without the app changing: dependencies, dotfiles (editor swap files, .git). */
function ignored(file: string | null): boolean {
  return file !== null && /(^|[\\/])(node_modules|\.[^\\/]*)([\\/]|$)|~$/.test(file);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // Already gone.
  }
  return exited;
}

/** Serves through `command ...argv` until a stop signal; resolves with 0 then. */
export function superviseWatch(command: readonly string[], argv: readonly string[], env: NodeJS.ProcessEnv, folder: string, io: WatchIo): Promise<number> {
  const [exe, ...flags] = command;
  const args = [...flags.filter((f) => !f.startsWith("--inspect")), ...argv];
  let child: ChildProcess;
  const start = (): void => {
    // Its own process group: a Ctrl-C reaches it once, through here. It stops if this process dies.
    child = spawn(exe!, args, { stdio: "inherit", env: { ...env, [WATCHED_CHILD_ENV]: "1" }, detached: true });
    const current = child;
    current.once("exit", (code, signal) => {
      if (current === child && !restarting && !stopping) io.err(`start_mcp: the app stopped (${code ?? signal}); waiting for a change to start it again`);
    });
  };
  let restarting = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const restart = async (): Promise<void> => {
    restarting = true;
    await stopChild(child);
    restarting = false;
    if (stopping) return;
    io.err("start_mcp: a file changed; restarting");
    start();
  };
  let watcher: FSWatcher;
  try {
    watcher = watch(folder, { recursive: true }, (_event, file) => {
      if (stopping || ignored(file)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void restart(), SETTLE_MS);
    });
  } catch {
    io.err("start_mcp: --watch cannot watch the app's folder");
    return Promise.resolve(1);
  }
  io.err("start_mcp: watching the app's folder; a change restarts the server");
  start();
  return io.stopRequested.then(async () => {
    stopping = true;
    clearTimeout(timer);
    watcher.close();
    await stopChild(child);
    return 0;
  });
}
