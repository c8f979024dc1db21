// Running a Rappture tool once: a private working folder (0700), the driver file written as
// Rappture writes one, the tool's command split into words with @tool and @driver put in (no
// shell, and no input value ever on the command line), progress lines passed on, other output
// kept to a bounded log, the whole process group ended on cancellation or at the time limit,
// and the run file it names read back (bounded) as the result.
import { createHash } from "node:crypto";
import { mkdtemp, open, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { spawnGroup } from "../util/process-group.ts";
import { driverXml } from "./driver.ts";
import type { RappturePublication } from "./tool-xml.ts";
import { parseXml, type XmlElement, XmlError } from "./xml.ts";

export const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;
const LOG_BYTES = 64 * 1024;
const PROGRESS = /^=RAPPTURE-PROGRESS=>\s*([-+]?\d+(?:\.\d+)?)\s*(.*)$/;
const RUN_LINE = /^=RAPPTURE-RUN=>\s*(.+?)\s*$/;

export interface RunOptions {
  signal?: AbortSignal;
  /** Ends the run (its whole process group) after this long. */
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Where working folders are made (default: the system's temp folder). */
  workRoot?: string;
  onProgress?: (percent: number, message: string) => void;
  /** Lines the program printed that are not Rappture's own (stdout and stderr). */
  onLog?: (line: string) => void;
}

export type RunOutcome =
  | { ok: true; run: XmlElement; runXml: string; digest: string; elapsedMs: number }
  | { ok: false; problem: string; stderrTail: string; elapsedMs: number };

/** A command line split as a shell would split words (quotes, backslashes), with nothing expanded. */
export function commandWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < command.length) word = (word ?? "") + command[++i];
      else word = (word ?? "") + c;
    } else if (c === "'" || c === '"') (quote = c), (word ??= "");
    else if (c === "\\" && i + 1 < command.length) word = (word ?? "") + command[++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word), (word = undefined);
    } else word = (word ?? "") + c;
  }
  if (quote) return undefined;
  if (word !== undefined) words.push(word);
  return words.length > 0 ? words : undefined;
}

/** Keeps the last `limit` bytes of what it is given. */
function tail(limit: number): { add(text: string): void; text(): string } {
  let kept = "";
  return {
    add(text) {
      kept = (kept + text).slice(-limit);
    },
    text: () => kept,
  };
}

async function readBounded(path: string): Promise<string | undefined> {
  const file = await open(path, "r").catch(() => undefined);
  if (!file) return undefined;
  try {
    const { size } = await file.stat();
    if (size > MAX_RUN_FILE_BYTES) throw new Error(`the run file is larger than ${MAX_RUN_FILE_BYTES} bytes`);
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await file.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await file.close();
  }
}

/** The run file: the one named by =RAPPTURE-RUN=>, else the newest run*.xml the program left in its folder. */
async function findRunFile(dir: string, named: string | undefined): Promise<string | undefined> {
  if (named) return isAbsolute(named) ? named : join(dir, named);
  const runs = (await readdir(dir)).filter((f) => /^run.*\.xml$/.test(f)).sort();
  return runs.length ? join(dir, runs.at(-1)!) : undefined;
}

export async function runRappture(tool: RappturePublication, current: ReadonlyMap<string, string>, options: RunOptions): Promise<RunOutcome> {
  const started = Date.now();
  const words = commandWords(tool.command);
  if (!words) return { ok: false, problem: "the tool's <command> cannot be split into words (an unclosed quote)", stderrTail: "", elapsedMs: 0 };
  const dir = await mkdtemp(join(options.workRoot ?? tmpdir(), "hubmcp-rappture-"));
  try {
    const driver = join(dir, "driver.xml");
    await writeFile(driver, driverXml(tool.run, tool.inputs, current), { mode: 0o600, flag: "wx" });
    const argv = words.map((w) => w.replaceAll("@tool", tool.folder).replaceAll("@driver", driver));
    const stderr = tail(4096);
    const log = tail(LOG_BYTES);
    let named: string | undefined;
    let pending = "";
    const onLine = (line: string): void => {
      const progress = PROGRESS.exec(line);
      const run = RUN_LINE.exec(line);
      if (progress) options.onProgress?.(Math.min(100, Math.max(0, Number(progress[1]))), progress[2]!.trim());
      else if (run) named = run[1];
      else if (line !== "") log.add(`${line}\n`), options.onLog?.(line);
    };
    const child = spawnGroup(argv[0]!, argv.slice(1), {
      env: options.env,
      cwd: dir,
      onStdout: (text) => {
        const lines = (pending + text).split("\n");
        pending = lines.pop()!.slice(-LOG_BYTES);
        for (const line of lines) onLine(line.replace(/\r$/, ""));
      },
      onStderr: (text) => {
        stderr.add(text);
        for (const line of text.split("\n")) if (line !== "") options.onLog?.(line);
      },
    });
    let ended: string | undefined;
    const stop = (why: string): void => {
      ended ??= why;
      void child.stop(2_000);
    };
    const onAbort = (): void => stop("the run was cancelled");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const timer = setTimeout(() => stop(`the run took longer than its limit of ${Math.round(options.timeoutMs / 1000)} s`), options.timeoutMs);
    const code = await child.exited;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (pending) onLine(pending);
    const elapsedMs = Date.now() - started;
    const failed = (problem: string): RunOutcome => ({ ok: false, problem, stderrTail: stderr.text().trim(), elapsedMs });
    if (ended) return failed(ended);
    if (code === 127 && child.pid === -1) return failed(`the tool's program could not be started`);
    if (code !== 0) return failed(code === null ? "the tool was ended by a signal" : `the tool exited with status ${code}`);
    const file = await findRunFile(dir, named);
    let runXml: string | undefined;
    try {
      runXml = file ? await readBounded(file) : undefined;
    } catch (err) {
      return failed((err as Error).message);
    }
    if (runXml === undefined) return failed("the tool wrote no run file (no =RAPPTURE-RUN=> line and no run*.xml)");
    try {
      const run = parseXml(runXml, { maxBytes: MAX_RUN_FILE_BYTES });
      return { ok: true, run, runXml, digest: createHash("sha256").update(runXml).digest("hex"), elapsedMs };
    } catch (err) {
      if (err instanceof XmlError) return failed(`the run file is not valid XML (${err.message})`);
      throw err;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
