// A lock per record file, so a read-modify-write in one process can't interleave with a
// write to the same record from another process on the data dir. The filesystem has no
// compare-and-swap on a file's contents, so each write holds a lock file beside the record,
// created with O_EXCL (exactly one creator wins, across processes and over NFSv3+). Calls
// within one process queue in memory first, so only other processes are waited for by polling.
//
// A lock is held for one read and one write (milliseconds). One left behind by a process
// that died is broken at once when its owner is known dead on this host, and by anyone once
// it is STALE_MS old; a process stalled (SIGSTOP) for that long while holding a lock may lose it.
import { randomBytes } from "node:crypto";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";

export const STALE_MS = 10_000;
/** Waiting longer than this for one record means something is wrong: the write fails. */
const GIVE_UP_MS = 3 * STALE_MS;

export class RecordLockError extends Error {
  readonly code = "HUBMCP_RECORD_LOCKED";
  constructor() {
    super("a record stayed locked by another writer; try again");
  }
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
      const owner = await acquire(lockPath);
      try {
        return await fn();
      } finally {
        await release(lockPath, owner);
      }
    } finally {
      done();
      if (this.#queues.get(lockPath) === tail) this.#queues.delete(lockPath);
    }
  }
}

async function acquire(lockPath: string): Promise<string> {
  const owner = `${hostname()} ${process.pid} ${randomBytes(8).toString("hex")}`;
  const giveUp = Date.now() + GIVE_UP_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const file = await open(lockPath, "wx", 0o600);
      try {
        await file.writeFile(owner);
      } finally {
        await file.close();
      }
      return owner;
    } catch (err) {
      if (!isCode(err, "EEXIST")) throw err;
    }
    if (await breakIfStale(lockPath)) continue;
    if (Date.now() > giveUp) throw new RecordLockError();
    await delay(Math.min(2 ** attempt, 20) * (0.5 + Math.random()));
  }
}

async function release(lockPath: string, owner: string): Promise<void> {
  // Only our own lock: if ours was broken as stale, the file is someone else's now.
  const text = await readFile(lockPath, "utf8").catch(() => undefined);
  if (text === owner) await unlink(lockPath).catch(() => undefined);
}

/** Removes the lock when it is stale; answers true when the caller should try again at once. */
async function breakIfStale(lockPath: string): Promise<boolean> {
  let seen: { ino: number; mtimeMs: number };
  let text: string;
  try {
    seen = await stat(lockPath);
    text = await readFile(lockPath, "utf8");
  } catch (err) {
    if (isCode(err, "ENOENT")) return true;
    throw err;
  }
  if (!ownerDead(text) && Date.now() - seen.mtimeMs < STALE_MS) return false;
  // Move it aside first: the rename is atomic, so of several breakers exactly one gets it,
  // and a lock taken afresh in between is recognised (another inode) and put back.
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if (isCode(err, "ENOENT")) return true;
    throw err;
  }
  if ((await stat(aside)).ino !== seen.ino) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return true;
}

/** Whether the lock's owner is a process on this host that no longer runs. */
function ownerDead(text: string): boolean {
  const [host, pidText] = text.split(" ");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
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
