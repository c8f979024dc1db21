// The data dir as a RecordStore: one JSON file per record, so processes sharing the dir
// never rewrite each other's files. Writes go to a temp file that is fsynced and renamed,
// so a crash leaves either the old record or the new one, never half of one; a write that fails
// (a full disk) removes its temp file and rejects with StoreFullError. Every write
// holds the record's lock (record-lock.ts), so `update` is atomic across processes. The dir
// holds every key and token of the hub: one that another account owns, can enter or can swap
// (a symbolic link) is refused when opened, never trusted.
import { randomBytes } from "node:crypto";
import { link, lstat, mkdir, open, readFile, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { RecordStore } from "../contracts/interfaces.ts";
import { checkCollection, decodeId, encodeId } from "./record-names.ts";
import { RecordLocks } from "./record-lock.ts";
import { storeReadFailure, storeWriteFailure } from "../contracts/store-errors.ts";

const TEMP_PREFIX = ".tmp-";
/** Beside each record while it is written; never a record name (base64url has no dot). */
const LOCK_PREFIX = ".lock-";

/** An existing data dir that other accounts could read, change or redirect; `message` says how to fix it. */
export class DataDirError extends Error {
  readonly code = "HUBMCP_UNSAFE_DATA_DIR";
}

/** Refuses an existing data dir that is a symbolic link, not a folder, not ours, or open to group or others. */
export async function checkDataDir(root: string): Promise<void> {
  let st;
  try {
    st = await lstat(root);
  } catch (err) {
    if (isCode(err, "ENOENT")) return; // created private on first write
    throw err;
  }
  const uid = process.getuid?.();
  if (st.isSymbolicLink()) throw new DataDirError(`the data dir ${root} is a symbolic link; point --data-dir at the real folder`);
  if (!st.isDirectory()) throw new DataDirError(`the data dir ${root} is not a folder`);
  if (uid !== undefined && st.uid !== uid)
    throw new DataDirError(`the data dir ${root} belongs to another account (uid ${st.uid}); run: chown -R ${uid} ${root}`);
  if ((st.mode & 0o077) !== 0) {
    throw new DataDirError(`the data dir ${root} is open to other accounts (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${root}`);
  }
}

export class FileRecordStore implements RecordStore {
  readonly #root: string;
  readonly #locks = new RecordLocks();

  constructor(root: string) {
    this.#root = root;
  }

  /** The store on `root` once checkDataDir accepts it; rejects with a DataDirError otherwise. */
  static async open(root: string): Promise<FileRecordStore> {
    await checkDataDir(root);
    return new FileRecordStore(root);
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.#path(collection, id), "utf8")) as T;
    } catch (err) {
      if (isCode(err, "ENOENT")) return undefined;
      throw storeReadFailure(err);
    }
  }

  put(collection: string, id: string, value: unknown): Promise<void> {
    return writing(async () => {
      const temp = await this.#writeTemp(collection, value);
      await this.#locked(collection, id, () => rename(temp, this.#path(collection, id))).catch((err: unknown) => dropTemp(temp, err));
    });
  }

  create(collection: string, id: string, value: unknown): Promise<boolean> {
    return writing(async () => {
      const temp = await this.#writeTemp(collection, value);
      try {
        // link() fails when the name exists: an atomic create-if-absent across processes.
        await this.#locked(collection, id, () => link(temp, this.#path(collection, id)));
        return true;
      } catch (err) {
        if (isCode(err, "EEXIST")) return false;
        throw err;
      } finally {
        await unlink(temp).catch(() => undefined);
      }
    });
  }

  delete(collection: string, id: string): Promise<void> {
    // ENOENT from the lock too: without the collection's folder there is nothing to delete.
    return writing(() =>
      this.#locked(collection, id, () => unlink(this.#path(collection, id))).catch((err: unknown) => {
        if (!isCode(err, "ENOENT")) throw err;
      }),
    );
  }

  update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    return writing(async () => {
      await mkdir(join(this.#root, checkCollection(collection)), { recursive: true, mode: 0o700 });
      return this.#locked(collection, id, async () => {
        const current = await this.get<T>(collection, id);
        const next = change(current);
        if (next === undefined) return current;
        const temp = await this.#writeTemp(collection, next);
        await rename(temp, this.#path(collection, id)).catch((err: unknown) => dropTemp(temp, err));
        return JSON.parse(JSON.stringify(next)) as T;
      });
    });
  }

  async list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    let names: string[];
    try {
      names = await readdir(join(this.#root, checkCollection(collection)));
    } catch (err) {
      if (isCode(err, "ENOENT")) return [];
      throw storeReadFailure(err);
    }
    const out: Array<{ id: string; value: T }> = [];
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX) || !name.endsWith(".json")) continue;
      const id = decodeId(name.slice(0, -".json".length));
      if (id === undefined) continue;
      const value = await this.get<T>(collection, id);
      if (value !== undefined) out.push({ id, value });
    }
    return out;
  }

  async secret(name: string): Promise<Buffer> {
    const existing = await this.get<{ key: string }>("secrets", name);
    if (existing) return Buffer.from(existing.key, "base64");
    await this.create("secrets", name, { key: randomBytes(32).toString("base64") });
    const winner = await this.get<{ key: string }>("secrets", name);
    if (!winner) throw new Error("secret vanished after creation");
    return Buffer.from(winner.key, "base64");
  }

  #locked<R>(collection: string, id: string, fn: () => Promise<R>): Promise<R> {
    return this.#locks.with(join(this.#root, checkCollection(collection), `${LOCK_PREFIX}${encodeId(id)}`), fn);
  }

  #path(collection: string, id: string): string {
    return join(this.#root, checkCollection(collection), `${encodeId(id)}.json`);
  }

  async #writeTemp(collection: string, value: unknown): Promise<string> {
    const dir = join(this.#root, checkCollection(collection));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    const file = await open(temp, "wx", 0o600);
    try {
      try {
        await file.writeFile(JSON.stringify(value));
        await file.sync();
      } finally {
        await file.close();
      }
    } catch (err) {
      return dropTemp(temp, err);
    }
    return temp;
  }
}

/** Runs one write of the store: a disk that cannot take it is a StoreFullError, the same for every write. */
async function writing<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    throw storeWriteFailure(err);
  }
}

/** A write that failed leaves no temp file behind; the failure goes on to the caller. */
async function dropTemp(temp: string, err: unknown): Promise<never> {
  await unlink(temp).catch(() => undefined);
  throw err;
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}
