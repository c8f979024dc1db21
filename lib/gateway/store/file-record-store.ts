// The data dir as a RecordStore: one JSON file per record, so processes sharing the dir
// never rewrite each other's files. Writes go to a temp file that is fsynced and renamed,
// so a crash leaves either the old record or the new one, never half of one.
import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, readdir, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { RecordStore } from "../contracts.ts";
import { checkCollection, decodeId, encodeId } from "./record-names.ts";

const TEMP_PREFIX = ".tmp-";
/** A lock file older than this was left by a crashed writer. */
const STALE_LOCK_MS = 10_000;

export class FileRecordStore implements RecordStore {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.#path(collection, id), "utf8")) as T;
    } catch (err) {
      if (isCode(err, "ENOENT")) return undefined;
      throw err;
    }
  }

  async put(collection: string, id: string, value: unknown): Promise<void> {
    const temp = await this.#writeTemp(collection, value);
    await rename(temp, this.#path(collection, id));
  }

  async create(collection: string, id: string, value: unknown): Promise<boolean> {
    const temp = await this.#writeTemp(collection, value);
    try {
      // link() fails when the name exists: an atomic create-if-absent across processes.
      await link(temp, this.#path(collection, id));
      return true;
    } catch (err) {
      if (isCode(err, "EEXIST")) return false;
      throw err;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async delete(collection: string, id: string): Promise<void> {
    await unlink(this.#path(collection, id)).catch((err: unknown) => {
      if (!isCode(err, "ENOENT")) throw err;
    });
  }

  async update<T>(collection: string, id: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    const path = this.#path(collection, id);
    await mkdir(join(this.#root, checkCollection(collection)), { recursive: true, mode: 0o700 });
    const lock = `${path.slice(0, -".json".length)}.lock`;
    await acquire(lock);
    try {
      const current = await this.get<T>(collection, id);
      const next = change(current);
      if (next === undefined) return current;
      await this.put(collection, id, next);
      return JSON.parse(JSON.stringify(next)) as T;
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  async list<T>(collection: string): Promise<Array<{ id: string; value: T }>> {
    let names: string[];
    try {
      names = await readdir(join(this.#root, checkCollection(collection)));
    } catch (err) {
      if (isCode(err, "ENOENT")) return [];
      throw err;
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

  #path(collection: string, id: string): string {
    return join(this.#root, checkCollection(collection), `${encodeId(id)}.json`);
  }

  async #writeTemp(collection: string, value: unknown): Promise<string> {
    const dir = join(this.#root, checkCollection(collection));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    const file = await open(temp, "wx", 0o600);
    try {
      await file.writeFile(JSON.stringify(value));
      await file.sync();
    } finally {
      await file.close();
    }
    return temp;
  }
}

/** An exclusive create is the lock every process on the data dir honours. */
async function acquire(lock: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await (await open(lock, "wx", 0o600)).close();
      return;
    } catch (err) {
      if (!isCode(err, "EEXIST")) throw err;
    }
    const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
    else await new Promise((r) => setTimeout(r, Math.min(50, 2 + attempt)));
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}
