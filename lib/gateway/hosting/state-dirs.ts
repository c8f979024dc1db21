// The state directory of a tool session (start_mcp --state-dir, where async runs are kept):
// one per (person, tool, revision), so a session started after an idle stop, a crash or a
// gateway restart answers for the runs of its predecessor. Each lives in a root folder the
// gateway owns (0711: its children can pass through, nobody can list it) and belongs to the
// account the session runs as, 0700: tool results may hold anything a person computed.
//
// The roots sit in folders every account may write to (the shared temp folder, a sticky
// Slurm workdir), where any fixed name could be made first by another account and so stop
// every session from starting. A root's name is therefore random (mkdtemp, made by us, so
// ours), and the store remembers it, which is what lets a restarted gateway find it again.
// A remembered root that is gone or no longer ours is replaced by a new one, never used.
import { createHash } from "node:crypto";
import { chmod, chown, lstat, mkdir, mkdtemp, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { RecordStore } from "../contracts/interfaces.ts";
import type { Account } from "./run-as.ts";

/** A tool session's state directory, or the root holding them, is not safely the gateway's own. */
export class ToolSessionStateDirError extends Error {
  readonly code = "HUBMCP_SESSION_STATE_DIR";
}

const uid = (): number => process.getuid?.() ?? -1;

const ROOTS = "state-roots";

/** Where a root is made: `app` sessions' in this host's temp folder, `slurm` sessions' in the workdir every node sees. */
export interface RootPlace {
  kind: "app" | "slurm";
  parent: string;
}

const PREFIX = { app: "hubmcp-gw-state-", slurm: ".hubmcp-state-" } as const;

/** The tool sessions' state roots, one per place (and, for a host's temp folder, per host) and gateway account. */
export class StateRoots {
  readonly #store: RecordStore;
  readonly #read: <T>(collection: string, id: string) => Promise<T | undefined>;

  /** `read` sees past any cache in `store`: a stale path would be replaced needlessly. */
  constructor(store: RecordStore, read?: <T>(collection: string, id: string) => Promise<T | undefined>) {
    this.#store = store;
    this.#read = read ?? ((collection, id) => store.get(collection, id));
  }

  async root(where: RootPlace): Promise<string> {
    const place = { kind: where.kind, parent: resolve(where.parent) };
    // A workdir is shared by every replica and node; a temp folder is one host's.
    const scope = place.kind === "slurm" ? `${uid()}\n${place.parent}` : `${hostname()}\n${uid()}\n${place.parent}`;
    const id = createHash("sha256").update(`${place.kind}\n${scope}`).digest("hex");
    for (let attempt = 0; attempt < 3; attempt++) {
      const known = await this.#read<{ path: string }>(ROOTS, id);
      if (known && (await isOurRoot(known.path, place))) return known.path;
      const fresh = await mkdtemp(join(place.parent, PREFIX[place.kind]));
      await chmod(fresh, 0o711);
      // Replicas may replace the same stale root at once: the first record written wins.
      const stored = await this.#store.update<{ path: string }>(ROOTS, id, (now) => (now?.path === known?.path ? { path: fresh } : undefined));
      if (stored?.path === fresh) return fresh;
      await rm(fresh, { recursive: true, force: true });
    }
    throw new ToolSessionStateDirError("the tool sessions' state root could not be settled");
  }
}

/** A root named as ours would be, in its place, a real folder owned by the gateway's account (mode fixed if changed). */
async function isOurRoot(path: string, place: RootPlace): Promise<boolean> {
  if (dirname(path) !== place.parent || !basename(path).startsWith(PREFIX[place.kind])) return false;
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory() || info.uid !== uid()) return false;
  if ((info.mode & 0o7777) !== 0o711) await chmod(path, 0o711);
  return true;
}

/** The root, made or checked: ownership and mode are verified, never assumed. */
async function ownRoot(root: string): Promise<void> {
  await mkdir(root, { mode: 0o711 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  const info = await lstat(root);
  if (!info.isDirectory() || info.uid !== uid()) throw new ToolSessionStateDirError("the tool sessions' state root is not a folder of the gateway's own");
  if ((info.mode & 0o777) !== 0o711) await chmod(root, 0o711);
}

/** The session's state directory for (person, tool, revision), owned by `account` (null: the gateway's own). */
export async function toolSessionStateDir(root: string, person: string, tool: string, revision: string, account: Account | null): Promise<string> {
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
    if (attempt > 0) throw new ToolSessionStateDirError("a tool session's state directory could not be made");
    await rm(dir, { recursive: true, force: true });
  }
  await chmod(dir, 0o700);
  return dir;
}
