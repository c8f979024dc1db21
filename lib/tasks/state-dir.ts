// Async runs kept in a tool session's state directory, one file per run under `runs/`.
// Each write is crash-safe (a private temporary file, fsync, rename, fsync of the folder), so
// a SIGKILL leaves either the old record or the new one, never half of one; files are 0600
// in a 0700 folder, since results may hold anything a person's tool returned.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { silentLogger, type Logger } from "../util/logger.ts";
import { memoryPersistence, parseRecord, type RunPersistence, type RunRecord } from "./persist.ts";

/** Run ids are UUIDs: anything else in the folder is not ours and is never opened. */
const RUN_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/;

/** The folder async runs are kept in is not safely this process's own. */
export class RunStateDirError extends Error {
  readonly code = "HUBMCP_STATE_DIR";
}

function ownFolder(path: string, what: string): void {
  const info = lstatSync(path);
  if (!info.isDirectory()) throw new RunStateDirError(`The ${what} is not a folder`);
  if (typeof process.getuid === "function" && info.uid !== process.getuid()) throw new RunStateDirError(`The ${what} belongs to another user`);
}

export class DirectoryPersistence implements RunPersistence {
  readonly dir: string;
  readonly #logger: Logger;

  /**
   * Makes `<stateDir>/runs` (0700) if needed. Refuses a state directory or `runs` that is a
   * link, not a folder, another user's, or (the state directory) writable by others: whoever
   * can rename entries there could swap in a folder of their own and feed us records.
   */
  constructor(stateDir: string, logger: Logger = silentLogger) {
    this.#logger = logger;
    this.dir = join(stateDir, "runs");
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    ownFolder(stateDir, "state directory");
    if ((lstatSync(stateDir).mode & 0o022) !== 0) throw new RunStateDirError("The state directory is writable by other users");
    try {
      mkdirSync(this.dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    ownFolder(this.dir, "state directory's runs folder");
    // A folder made earlier with a looser umask is tightened, not trusted.
    chmodSync(this.dir, 0o700);
  }

  save(record: RunRecord): void {
    const tmp = join(this.dir, `.${record.id}.${randomBytes(6).toString("hex")}.tmp`);
    const fd = openSync(tmp, "wx", 0o600);
    // A write that fails (a full disk, most likely) takes its temporary file with it.
    try {
      try {
        writeFileSync(fd, JSON.stringify(record));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, join(this.dir, `${record.id}.json`));
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    this.#syncDir();
  }

  remove(id: string): void {
    if (!RUN_FILE.test(`${id}.json`)) return;
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  load(): RunRecord[] {
    const records: RunRecord[] = [];
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      // Temporary files are writes a kill cut short: the record they would have replaced is still there.
      if (name.startsWith(".") && name.endsWith(".tmp")) {
        rmSync(path, { force: true });
        continue;
      }
      const match = RUN_FILE.exec(name);
      if (!match) continue;
      const record = this.#read(path);
      if (record && record.id === match[1]) records.push(record);
      else {
        this.#logger.warn("dropped an unreadable async run record", { file: name });
        rmSync(path, { force: true });
      }
    }
    return records;
  }

  #read(path: string): RunRecord | null {
    try {
      return parseRecord(JSON.parse(readFileSync(path, "utf8")));
    } catch {
      return null;
    }
  }

  /** The rename is durable only once the folder's entry is. */
  #syncDir(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.dir, "r");
      fsyncSync(fd);
    } catch {
      // Some filesystems refuse fsync on a folder; the rename is still atomic there.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/** `stateDir`, else `$HUBMCP_STATE_DIR` (start_mcp's `--state-dir`), keeps runs on disk; neither set (or empty) means memory. */
export function runPersistence(stateDir: string | undefined, logger?: Logger): RunPersistence {
  const dir = stateDir ?? process.env.HUBMCP_STATE_DIR;
  return dir ? new DirectoryPersistence(dir, logger) : memoryPersistence;
}
