// `start_mcp --watch`, for developing a tool: the app is served by a child start_mcp (the same
// command without --watch), started again whenever a file under the app's folder changes.
// A restart is a new process, so every module is loaded afresh (Node cannot unload ES
// modules). Clients lose their sessions and start new ones: the official SDKs and the tool
// console do this on their own (404 on the old session id). A child that fails to load waits
// for the next change rather than ending the watch.
import { watch, type FSWatcher } from "node:fs";
import { WATCHED_CHILD_ENV } from "../util/cli-entry.ts";
import { type ChildProcessHandle, spawnGroup } from "../util/process-group.ts";

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

/** Serves through `command ...argv` until a stop signal; resolves with 0 then. */
export function superviseWatch(command: readonly string[], argv: readonly string[], env: NodeJS.ProcessEnv, folder: string, io: WatchIo): Promise<number> {
  const [exe, ...flags] = command;
  const args = [...flags.filter((f) => !f.startsWith("--inspect")), ...argv];
  let child: ChildProcessHandle;
  const start = (): void => {
    // Its own process group, sharing this one's output: a Ctrl-C reaches it once, through here, and it stops if this process dies.
    child = spawnGroup(exe!, args, { env: { ...env, [WATCHED_CHILD_ENV]: "1" } });
    const current = child;
    void current.exited.then((code) => {
      if (current === child && !restarting && !stopping) io.err(`start_mcp: the app stopped (${code ?? "a signal"}); waiting for a change to start it again`);
    });
  };
  let restarting = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  const restart = async (): Promise<void> => {
    restarting = true;
    await child.stop();
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
    await child.stop();
    return 0;
  });
}
