// Runs a helper command (conda, `bash -lc use`) and captures its output, bounded in time.
// Never throws: a missing program or a failure is a value the caller turns into a message.
import { execFile } from "node:child_process";

export type Captured = { kind: "done"; code: number; stdout: string; stderr: string } | { kind: "missing" } | { kind: "failed"; reason: string };

export function capture(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Captured> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { env: options.env, timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (!err) return resolve({ kind: "done", code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
        if (e.code === "ENOENT") return resolve({ kind: "missing" });
        if (e.killed) return resolve({ kind: "failed", reason: "timed out" });
        if (typeof e.code === "number") return resolve({ kind: "done", code: e.code, stdout, stderr });
        resolve({ kind: "failed", reason: String(e.code ?? "error") });
      },
    );
  });
}
