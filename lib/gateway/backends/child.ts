// What the backends that run a child on this host (`app`, `rappture`, `command`) share: the
// account it runs as, and waiting for the one stdout line that says it is ready. The child
// itself is a process group of lib/util/process-group.ts.
import type { ChildProcessHandle } from "../../util/process-group.ts";
import { childAccount, type Account } from "../hosting/run-as.ts";
import { ToolSessionLaunchError, type LaunchRequest } from "./contract.ts";

/** What a child may print on stdout before the line the gateway waits for. */
const MAX_OUTPUT_BEFORE_READY = 1024 * 1024;

/** The account a revision's children run as; a failure is reported on the session's output, then as HUBMCP_SESSION_LAUNCH_FAILED. */
export async function accountFor(req: LaunchRequest, runAs: string | undefined): Promise<Account | null> {
  try {
    return await childAccount(runAs, req.user);
  } catch (err) {
    req.onOutput((err as Error).message);
    throw new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", (err as Error).message);
  }
}

/** The uid/gid options of spawnGroup for an account (none: the gateway's own). */
export const asAccount = (account: Account | null): { uid?: number; gid?: number } => (account ? { uid: account.uid, gid: account.gid } : {});

/**
 * Resolves with the first stdout line matching `accept`; rejects on exit, after `ms`, or
 * past MAX_OUTPUT_BEFORE_READY characters without one. Stderr lines go to `onOutput`.
 */
export function firstLine(group: ChildProcessHandle, ms: number, accept: (line: string) => boolean, onOutput: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    let seen = 0;
    let found = false;
    const timer = setTimeout(
      () => reject(new ToolSessionLaunchError("HUBMCP_SESSION_NEVER_READY", `the tool session did not become ready within ${Math.round(ms / 1000)} s`)),
      ms,
    );
    group.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      if (!found && (seen += chunk.length) > MAX_OUTPUT_BEFORE_READY) {
        clearTimeout(timer);
        reject(new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session printed too much before it was ready"));
      }
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!found && accept(line)) {
          found = true;
          clearTimeout(timer);
          resolve(line);
        }
      }
      if (buffered.length > 65536) buffered = "";
    });
    let err = "";
    group.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      let nl: number;
      while ((nl = err.indexOf("\n")) !== -1) {
        onOutput(err.slice(0, nl));
        err = err.slice(nl + 1);
      }
    });
    void group.exited.then(() => {
      clearTimeout(timer);
      reject(new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session exited before it was ready"));
    });
  });
}
