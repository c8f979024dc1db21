// The audit trail's files: `audit.jsonl` in a folder only the gateway's account may enter,
// created 0600, renamed whole to `audit-{time}.jsonl` once it would pass its size (a rename
// is atomic: a reader sees the old name or the new, never half a file), oldest beyond the
// count removed.
import { lstat, mkdir, open, readdir, rename, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

export const CURRENT = "audit.jsonl";
const ROTATED = /^audit-(\d{8}T\d{9}Z)(?:-(\d+))?\.jsonl$/;

/** The audit files of a folder, oldest first, the current one last. */
export async function auditFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const rotated = names.filter((n) => ROTATED.test(n)).sort(byAge);
  return [...rotated, ...(names.includes(CURRENT) ? [CURRENT] : [])].map((n) => join(dir, n));
}

function byAge(a: string, b: string): number {
  const [, ta, na] = ROTATED.exec(a)!;
  const [, tb, nb] = ROTATED.exec(b)!;
  return ta! < tb! ? -1 : ta! > tb! ? 1 : Number(na ?? 0) - Number(nb ?? 0);
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[-:.]/g, "");
}

export class AuditFiles {
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  #handle: FileHandle | undefined;
  #size = 0;
  #rotations = 0;

  constructor(dir: string, maxBytes: number, keep: number) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
    this.#keep = keep;
  }

  /** Appends whole lines, rotating first whenever the next would take the file past its size. */
  async append(lines: readonly string[]): Promise<void> {
    let handle = this.#handle ?? (await this.#open());
    let chunk = "";
    let bytes = 0;
    for (const line of lines) {
      const size = Buffer.byteLength(line);
      if (this.#size + bytes > 0 && this.#size + bytes + size > this.#maxBytes) {
        await handle.appendFile(chunk);
        await this.#rotate();
        handle = this.#handle!;
        chunk = "";
        bytes = 0;
      }
      chunk += line;
      bytes += size;
    }
    await handle.appendFile(chunk);
    this.#size += bytes;
  }

  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }

  async #open(): Promise<FileHandle> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    // Another account able to enter the folder could read the trail, or swap the file for a link.
    const folder = await lstat(this.#dir);
    if (!folder.isDirectory() || (folder.mode & 0o077) !== 0 || folder.uid !== process.getuid?.()) {
      throw Object.assign(new Error("The audit folder must be this account's own, mode 0700"), { code: "HUBMCP_AUDIT_FOLDER_OPEN" });
    }
    const handle = await open(join(this.#dir, CURRENT), "a", 0o600);
    this.#size = (await handle.stat()).size;
    this.#handle = handle;
    return handle;
  }

  async #rotate(): Promise<void> {
    await this.close();
    this.#size = 0;
    const name = `audit-${stamp(new Date())}-${++this.#rotations}.jsonl`;
    await rename(join(this.#dir, CURRENT), join(this.#dir, name));
    const all = await auditFiles(this.#dir);
    const rotated = all.filter((p) => !p.endsWith(`/${CURRENT}`));
    for (const old of rotated.slice(0, Math.max(0, rotated.length - this.#keep))) await rm(old, { force: true });
    await this.#open();
  }
}
