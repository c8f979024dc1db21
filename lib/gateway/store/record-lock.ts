// A lock per record file, so a read-modify-write in one process can't interleave with a
// write to the same record from another process on the data dir. The filesystem has no
// compare-and-swap on a file's contents, so each write holds a lock file beside the record,
// created with O_EXCL (exactly one creator wins, across processes and over NFSv3+). Calls
// within one process queue in memory first, so only other processes are waited for by polling.
//
// A lock is held for one read and one write (milliseconds). One left behind is broken by
// anyone once it is STALE_MS old, and at once when its owner is known dead: same host, same
// PID namespace, same boot, and kill(pid, 0) says ESRCH. Without the namespace and boot, a
// live owner in a container sharing our host name and data dir would look dead too.
//
// Removing a lock file that is not ours races: between judging it stale and unlinking it, its
// owner may release it and a third process create a fresh one, which we would then remove. So
// every removal of a lock file (a break, and the owner's own release) first takes a guard
// named after that file's inode, with O_EXCL, and re-reads the file under it: one remover per
// lock instance, and the instance removed is the one judged. A guard left by a remover that
// died is itself broken by the same rules. What no lock file can prevent: a process stalled
// (SIGSTOP) for STALE_MS while holding a lock or a guard may lose it.
import { randomBytes } from "node:crypto";
import { open, readFile, readlink, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { StoreFullError, storeWriteFailure } from "../contracts/store-errors.ts";

export const STALE_MS = 10_000;
/** Waiting longer than this for one record means something is wrong: the write fails. */
const GIVE_UP_MS = 3 * STALE_MS;

export class RecordLockError extends Error {
  readonly code = "HUBMCP_RECORD_LOCKED";
  constructor() {
    super("a record stayed locked by another writer; try again");
  }
}

/** A lock (or guard) file as read at one moment: the inode tells instances of one name apart. */
interface LockFile {
  ino: number;
  mtimeMs: number;
  text: string;
}

export class RecordLocks {
  readonly #queues = new Map<string, Promise<void>>();

  /** Runs `fn` holding the lock file `lockPath` (its folder must exist). */
  async with<R>(lockPath: string, fn: () => Promise<R>): Promise<R> {
    const before = this.#queues.get(lockPath);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before ? before.then(() => mine) : mine;
    this.#queues.set(lockPath, tail);
    try {
      await before;
      const held = await acquire(lockPath);
      try {
        return await fn();
      } finally {
        await release(lockPath, held);
      }
    } finally {
      done();
      if (this.#queues.get(lockPath) === tail) this.#queues.delete(lockPath);
    }
  }
}

/** This process's place (processPlace), known once it has written its first lock. */
let ownPlace: string | undefined;

/**
 * "<pid namespace> <boot id>" of this process, or "-" where `proc` cannot say (not Linux, no
 * /proc): then no owner is ever judged dead by its pid, only by the lock's age.
 */
export async function processPlace(proc = "/proc"): Promise<string> {
  try {
    const ns = await readlink(`${proc}/self/ns/pid`);
    const boot = (await readFile(`${proc}/sys/kernel/random/boot_id`, "utf8")).trim();
    return /^pid:\[\d+\]$/.test(ns) && /^[0-9a-f-]{36}$/.test(boot) ? `${ns} ${boot}` : "-";
  } catch {
    return "-";
  }
}

async function ownerText(): Promise<string> {
  ownPlace ??= await processPlace();
  return `${hostname()} ${process.pid} ${randomBytes(8).toString("hex")} ${ownPlace}`;
}

async function acquire(lockPath: string): Promise<LockFile> {
  const text = await ownerText();
  const giveUp = Date.now() + GIVE_UP_MS;
  for (let attempt = 0; ; attempt++) {
    const made = await createExclusive(lockPath, text);
    if (made) return made;
    if (await breakIfStale(lockPath, lockPath)) continue;
    if (Date.now() > giveUp) throw new RecordLockError();
    await delay(Math.min(2 ** attempt, 20) * (0.5 + Math.random()));
  }
}

async function release(lockPath: string, held: LockFile): Promise<void> {
  const guard = guardOf(lockPath, held.ino);
  // A guard that could not be made (a disk out of inodes): remove unguarded rather than leave
  // the lock to hold every other writer off for STALE_MS.
  const guarded = await createExclusive(guard, held.text).catch(() => null);
  // The guard exists: our lock was judged stale and is being broken; it is no longer ours.
  if (guarded === undefined) return;
  try {
    const now = await readLock(lockPath);
    if (now && sameFile(now, held)) await unlink(lockPath).catch(() => undefined);
  } finally {
    if (guarded) await unlink(guard).catch(() => undefined);
  }
}

/**
 * Removes `path` (the lock, or a guard whose remover died) when it is stale. Answers true when
 * the caller should try again at once, false when the file is live.
 */
async function breakIfStale(lockPath: string, path: string): Promise<boolean> {
  const seen = await readLock(path);
  if (!seen) return true;
  if (!isStale(seen)) return false;
  const guard = guardOf(lockPath, seen.ino);
  const guarded = await createExclusive(guard, await ownerText());
  // Someone else is removing this instance; or died doing so, and then its guard goes first.
  if (!guarded) return breakIfStale(lockPath, guard);
  try {
    const now = await readLock(path);
    // Another instance under the same name is live by construction (only guard holders remove).
    if (now && sameFile(now, seen)) await unlink(path).catch(() => undefined);
  } finally {
    await unlink(guard).catch(() => undefined);
  }
  return true;
}

function guardOf(lockPath: string, ino: number): string {
  return `${lockPath}.break-${ino}`;
}

/**
 * Creates `path` holding `text` unless it exists (undefined then). On a full disk the file
 * stays empty: a lock whose owner is unknown, freed by its age alone, so that a delete, which
 * frees space, still works. (A write failing otherwise, an I/O error, leaves it to its age too.)
 */
async function createExclusive(path: string, text: string): Promise<LockFile | undefined> {
  let file;
  try {
    file = await open(path, "wx", 0o600);
  } catch (err) {
    if (isCode(err, "EEXIST")) return undefined;
    throw err;
  }
  try {
    const written = await file.writeFile(text).then(
      () => text,
      (err: unknown) => {
        if (storeWriteFailure(err) instanceof StoreFullError) return "";
        throw err;
      },
    );
    const st = await file.stat();
    return { ino: st.ino, mtimeMs: st.mtimeMs, text: written };
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** The file under `path` now, its inode and text read from one open, so both are of one instance. */
async function readLock(path: string): Promise<LockFile | undefined> {
  let file;
  try {
    file = await open(path, "r");
  } catch (err) {
    if (isCode(err, "ENOENT")) return undefined;
    throw err;
  }
  try {
    const st = await file.stat();
    return { ino: st.ino, mtimeMs: st.mtimeMs, text: await file.readFile("utf8") };
  } finally {
    await file.close();
  }
}

function sameFile(a: LockFile, b: LockFile): boolean {
  return a.ino === b.ino && a.text === b.text;
}

function isStale(lock: LockFile): boolean {
  return Date.now() - lock.mtimeMs >= STALE_MS || ownerDead(lock.text);
}

/** Whether the lock's owner is a process of our host, PID namespace and boot that no longer runs. */
function ownerDead(text: string): boolean {
  const [host, pidText, , ns, boot] = text.split(" ");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  // A lock of the old form, or of an owner elsewhere, has another place: only its age counts.
  if (ownPlace === "-" || `${ns} ${boot}` !== ownPlace) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return isCode(err, "ESRCH");
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}
