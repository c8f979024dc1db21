// A helper command's outcome (conda, `bash -lc use`) in the shape the launcher words its
// messages from, over the one command runner (lib/util/run-command.ts). Never throws: a
// missing program or a failure is a value the caller turns into a message.
import { runCommand } from "../util/run-command.ts";

export type Captured = { kind: "done"; code: number; stdout: string; stderr: string } | { kind: "missing" } | { kind: "failed"; reason: string };

export async function capture(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Captured> {
  const ran = await runCommand(command, args, { env: options.env, timeoutMs: options.timeoutMs ?? 30_000, maxOutputBytes: 16 * 1024 * 1024 });
  if (ran.failure === "HUBMCP_COMMAND_NOT_FOUND") return { kind: "missing" };
  if (ran.failure === "HUBMCP_COMMAND_TIMEOUT") return { kind: "failed", reason: "timed out" };
  if (ran.failure !== undefined) return { kind: "failed", reason: "could not be started" };
  if (ran.code === null) return { kind: "failed", reason: "ended by a signal" };
  return { kind: "done", code: ran.code, stdout: ran.stdout, stderr: ran.stderr };
}
