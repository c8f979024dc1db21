// `start_mcp --stdio` keeps stdout for protocol messages only, whatever the app does: the
// command runs itself again as a child whose fd 1 is this process's stderr and whose fd 3 is
// the real stdout. console.log, process.stdout.write, fs.writeSync(1, …) and programs the
// app starts with inherited stdio all land on stderr; only the server writes to fd 3. (Node
// has no dup2, so a second process is the one way to move fd 1 for everything.) This
// process only forwards stop signals and returns the child's exit status.
import { spawn } from "node:child_process";
import { createWriteStream, fstatSync, type Stats } from "node:fs";
import { Socket } from "node:net";
import type { Writable } from "node:stream";
import { STDIO_PROTOCOL_FD_ENV } from "../util/cli-entry.ts";

export interface SplitIo {
  err(line: string): void;
  stopRequested: Promise<string>;
}

/** Runs `command ...argv` as the stdio child and resolves with its exit status. */
export function superviseStdioChild(command: readonly string[], argv: readonly string[], env: NodeJS.ProcessEnv, io: SplitIo): Promise<number> {
  // Debuggers would clash on their port; the child is what one wants to debug anyway.
  const [exe, ...flags] = command;
  const args = [...flags.filter((f) => !f.startsWith("--inspect")), ...argv];
  // Its own process group: a Ctrl-C reaches it once, through here, not twice.
  const child = spawn(exe!, args, { stdio: [0, 2, 2, 1], env: { ...env, [STDIO_PROTOCOL_FD_ENV]: "3" }, detached: true });
  return new Promise((resolve) => {
    child.once("error", (err) => {
      io.err(`start_mcp: could not start the stdio server: ${err.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    void io.stopRequested.then((signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal as NodeJS.Signals);
    });
  });
}

/**
 * In the stdio child: the stream protocol messages go to (the parent's stdout), or an error
 * when the descriptor named is not open. Undefined outside a stdio child. The variable is
 * removed so programs the app starts do not inherit it.
 */
export function protocolOutput(env: NodeJS.ProcessEnv): Writable | string | undefined {
  const value = env[STDIO_PROTOCOL_FD_ENV];
  if (value === undefined) return undefined;
  delete env[STDIO_PROTOCOL_FD_ENV];
  const fd = Number(value);
  let stream: Stats;
  try {
    if (!Number.isInteger(fd) || fd < 3) throw new Error("not a descriptor");
    stream = fstatSync(fd);
  } catch {
    return `${STDIO_PROTOCOL_FD_ENV} does not name an open descriptor; it is set by start_mcp --stdio for itself`;
  }
  // A pipe or socket (what a host gives) is written as Node writes its own stdout to one, on the
  // event loop; a file stream would send every write through the thread pool, which cost the
  // stdio transport a third of its round trips. A file (a redirect) keeps the file stream.
  if (stream.isFIFO() || stream.isSocket()) return new Socket({ fd, readable: false, writable: true });
  return createWriteStream("", { fd, autoClose: false });
}
