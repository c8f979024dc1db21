// The state directory of a tool session (start_mcp --state-dir, where async runs are kept):
// one per (person, tool, revision), so a session started after an idle stop, a crash or a
// gateway restart answers for the runs of its predecessor. Each lives in a root folder the
// gateway owns (0711: its children can pass through, nobody can list it) and belongs to the
// account the session runs as, 0700: tool results may hold anything a person computed.
import { createHash } from "node:crypto";
import { chmod, chown, lstat, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Account } from "./run-as.ts";

/** A tool session's state directory, or the root holding them, is not safely the gateway's own. */
export class SessionStateDirError extends Error {
  readonly code = "HUBMCP_SESSION_STATE_DIR";
}

/** Where `app` sessions' state directories live: beside their session folders, on this host. */
export function localStateRoot(): string {
  return join(tmpdir(), `hubmcp-gw-state-${process.getuid?.() ?? "user"}`);
}

const uid = (): number => process.getuid?.() ?? -1;

/** The root, made or checked: a shared /tmp lets anyone make the name first, so ownership and mode are verified, never assumed. */
async function ownRoot(root: string): Promise<void> {
  await mkdir(root, { mode: 0o711 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  const info = await lstat(root);
  if (!info.isDirectory() || info.uid !== uid()) throw new SessionStateDirError("the tool sessions' state root is not a folder of the gateway's own");
  if ((info.mode & 0o777) !== 0o711) await chmod(root, 0o711);
}

/** The session's state directory for (person, tool, revision), owned by `account` (null: the gateway's own). */
export async function sessionStateDir(root: string, person: string, tool: string, revision: string, account: Account | null): Promise<string> {
  await ownRoot(root);
  const name = createHash("sha256").update(`${person}\n${tool}\n${revision}`).digest("hex").slice(0, 32);
  const dir = join(root, name);
  const owner = account?.uid ?? uid();
  for (let attempt = 0; ; attempt++) {
    const made = await mkdir(dir, { mode: 0o700 }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
        return false;
      },
    );
    if (made) {
      if (account) await chown(dir, account.uid, account.gid);
      break;
    }
    const info = await lstat(dir);
    if (info.isDirectory() && info.uid === owner) break;
    // Another account's (the revision's runAs changed) or not a folder: its runs are not this account's to read.
    if (attempt > 0) throw new SessionStateDirError("a tool session's state directory could not be made");
    await rm(dir, { recursive: true, force: true });
  }
  await chmod(dir, 0o700);
  return dir;
}
