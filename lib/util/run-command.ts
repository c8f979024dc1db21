// Running a command to its end and reading what it printed: the one command runner of lib/
// (Slurm's commands, getent, conda and `use` probes). Argv only, never a shell, so no
// argument is ever parsed as shell syntax; optionally as another account; bounded in time
// (the whole process group is ended at the limit) and in memory (output past the limit is
// dropped, not buffered). It never throws: how the command ended is a value, and callers word
// their own messages. Nothing here puts arguments or output in a message.
import { spawnSync } from "node:child_process";
import { spawnGroup } from "./process-group.ts";

export type CommandFailure =
  /** The program is not on PATH (or the path given does not exist). */
  | "HUBMCP_COMMAND_NOT_FOUND"
  /** It exists but could not be started (permissions, an account it may not switch to). */
  | "HUBMCP_COMMAND_NOT_STARTED"
  /** It ran past `timeoutMs`; its process group was ended. */
  | "HUBMCP_COMMAND_TIMEOUT";

export interface CommandOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; 1 MiB by default. */
  maxOutputBytes?: number;
}

export interface CommandRun {
  /** The exit status; null when it ended by a signal, timed out or never started. */
  code: number | null;
  /** Why it did not run to an exit of its own; absent when it did (whatever its status). */
  failure?: CommandFailure;
  stdout: string;
  stderr: string;
  /** True when either stream printed more than `maxOutputBytes` (the rest was dropped). */
  truncated: boolean;
}

const DEFAULT_OUTPUT_BYTES = 1 << 20;
/** Between SIGTERM and SIGKILL of a command past its time. */
const KILL_GRACE_MS = 1_000;

/** Collects a stream's first `limit` bytes. */
function collector(limit: number): { add(chunk: Buffer): void; text(): string; over: boolean } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    over: false,
    add(chunk) {
      const room = limit - size;
      if (chunk.length > room) this.over = true;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      size += kept.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
  };
}

export async function runCommand(command: string, args: readonly string[], options: CommandOptions): Promise<CommandRun> {
  const limit = options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES;
  const out = collector(limit);
  const err = collector(limit);
  let child: ReturnType<typeof spawnGroup>;
  try {
    child = spawnGroup(command, args, { env: options.env ?? process.env, cwd: options.cwd, uid: options.uid, gid: options.gid, output: "pipe" });
  } catch {
    // spawn throws rather than emits for some refusals (an invalid uid, EPERM on some systems).
    return { code: null, failure: "HUBMCP_COMMAND_NOT_STARTED", stdout: "", stderr: "", truncated: false };
  }
  child.stdout!.on("data", (chunk: Buffer) => out.add(chunk));
  child.stderr!.on("data", (chunk: Buffer) => err.add(chunk));
  // Streams end after the exit event at times: wait for both, so no output is lost.
  const drained = Promise.all([child.stdout!, child.stderr!].map((s) => new Promise<void>((done) => s.once("close", () => done()))));
  let timer: NodeJS.Timeout | undefined;
  const overtime = new Promise<"timeout">((done) => (timer = setTimeout(() => done("timeout"), options.timeoutMs)));
  // Its exit and the end of its output, unless the time runs out first (a grandchild holding
  // the pipes open counts as still running).
  const ended = await Promise.race([child.exited.then(() => (child.startError === undefined ? drained : undefined)), overtime]);
  clearTimeout(timer);
  const timedOut = ended === "timeout";
  if (timedOut) {
    await child.stop(KILL_GRACE_MS);
    child.signal("SIGKILL");
    child.stdout!.destroy();
    child.stderr!.destroy();
  }
  const code = await child.exited;
  const ran = { stdout: out.text(), stderr: err.text(), truncated: out.over || err.over };
  if (child.startError !== undefined) {
    return { code: null, failure: child.startError === "ENOENT" ? "HUBMCP_COMMAND_NOT_FOUND" : "HUBMCP_COMMAND_NOT_STARTED", ...ran };
  }
  if (timedOut) return { code: null, failure: "HUBMCP_COMMAND_TIMEOUT", ...ran };
  return { code, ...ran };
}

/**
 * The same command run synchronously: for exit hooks (./exit-registry.ts), where nothing
 * asynchronous runs any more, and for code that cannot wait (an error being worded). Only the
 * command itself is ended at the time limit; output past the bound ends it too (truncated).
 */
export function runCommandSync(command: string, args: readonly string[], options: CommandOptions): CommandRun {
  const as = options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {};
  let ran: ReturnType<typeof spawnSync>;
  try {
    ran = spawnSync(command, [...args], {
      env: options.env,
      cwd: options.cwd,
      timeout: options.timeoutMs,
      maxBuffer: options.maxOutputBytes ?? DEFAULT_OUTPUT_BYTES,
      stdio: ["ignore", "pipe", "pipe"],
      ...as,
    });
  } catch {
    return { code: null, failure: "HUBMCP_COMMAND_NOT_STARTED", stdout: "", stderr: "", truncated: false };
  }
  const text = { stdout: ran.stdout?.toString("utf8") ?? "", stderr: ran.stderr?.toString("utf8") ?? "" };
  const errno = (ran.error as NodeJS.ErrnoException | undefined)?.code;
  if (errno === "ENOBUFS") return { code: null, ...text, truncated: true };
  if (errno === "ETIMEDOUT") return { code: null, failure: "HUBMCP_COMMAND_TIMEOUT", ...text, truncated: false };
  if (errno !== undefined)
    return { code: null, failure: errno === "ENOENT" ? "HUBMCP_COMMAND_NOT_FOUND" : "HUBMCP_COMMAND_NOT_STARTED", ...text, truncated: false };
  return { code: ran.status, ...text, truncated: false };
}
