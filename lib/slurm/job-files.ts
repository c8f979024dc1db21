// The private folder a tool's Slurm job works through: the batch script that runs the
// command and records its exit status, the job's output file, and a follower that turns
// new output lines into progress.
import { mkdtempSync, openSync, readSync, closeSync, readFileSync, rmSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";

/** `PROGRESS <done>[/<total>] [message]`, alone on a line of the job's output. */
export const PROGRESS_LINE = /^PROGRESS\s+(\d+(?:\.\d+)?)(?:\s*\/\s*(\d+(?:\.\d+)?))?(?:\s+(.*?))?\s*$/;

/** The job's output kept for the result: its last MiB. */
const OUTPUT_KEPT = 1 << 20;

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

export interface JobFiles {
  dir: string;
  script: string;
  output: string;
  exit: string;
}

/**
 * Makes the folder (0700, under `parent`, which compute nodes must see too) and the batch
 * script. The script runs the command in the foreground and waits on it: a process the job
 * left behind would escape `scancel` under Slurm's plain process tracking.
 */
export function makeJobFiles(parent: string, body: { command: readonly string[] } | { script: string }): JobFiles {
  const dir = mkdtempSync(join(parent, ".hubmcp-slurm-"));
  const files = { dir, script: join(dir, "job.sh"), output: join(dir, "output"), exit: join(dir, "exit") };
  let run = `"$@"`;
  if ("script" in body) {
    const inner = join(dir, "script");
    writeFileSync(inner, body.script, { mode: 0o700 });
    run = body.script.startsWith("#!") ? quote(inner) : `/bin/sh ${quote(inner)}`;
  }
  const tmp = quote(`${files.exit}.tmp`);
  writeFileSync(
    files.script,
    // A job Slurm ends (scancel, time limit, preemption) has its shell signalled with the
    // command: the trap, run as soon as the command returns, leaves no exit status behind, so
    // the run reads as lost rather than as a command that failed with 143.
    `#!/bin/sh\n# Written by hubmcp's slurm.run: the command, then its exit status where the tool server reads it.\ntrap 'exit 143' TERM\n${run}\ncode=$?\nprintf '%s\\n' "$code" > ${tmp} && mv -f ${tmp} ${quote(files.exit)}\nexit "$code"\n`,
    { mode: 0o700 },
  );
  return files;
}

/** The exit status the script recorded, or null while there is none. */
export function readExit(files: JobFiles): number | null {
  try {
    const text = readFileSync(files.exit, "utf8").trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

/** The job's output as text, its last MiB at most. */
export function readOutput(files: JobFiles): string {
  try {
    const size = statSync(files.output).size;
    const from = Math.max(0, size - OUTPUT_KEPT);
    const buf = Buffer.alloc(size - from);
    const fd = openSync(files.output, "r");
    try {
      readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
    return buf.toString("utf8");
  } catch {
    return "";
  }
}

export function removeJobFiles(files: JobFiles): void {
  rmSync(files.dir, { recursive: true, force: true });
}

/** Reads what the job appended since the last call and hands each complete line on. */
export class OutputFollower {
  readonly #path: string;
  #offset = 0;
  #partial = "";
  /** A character split between two reads is completed by the next. */
  readonly #decoder = new StringDecoder("utf8");

  constructor(path: string) {
    this.#path = path;
  }

  poll(onLine: (line: string) => void): void {
    let fd: number;
    try {
      fd = openSync(this.#path, "r");
    } catch {
      return; // Slurm makes the file when the job starts.
    }
    try {
      const chunk = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, this.#offset);
        if (n === 0) break;
        this.#offset += n;
        const lines = (this.#partial + this.#decoder.write(chunk.subarray(0, n))).split("\n");
        this.#partial = lines.pop()!;
        for (const line of lines) onLine(line);
      }
    } finally {
      closeSync(fd);
    }
  }
}
