// `hub_gateway usage`: the audit trail's files (rotated ones too) read line by line, summed
// per tool and revision (or per person and tool): distinct people, tool sessions, calls,
// errors, p50/p95 duration (a bounded sketch) and tool-session time. Memory grows with the
// number of tools and people, never with the number of lines.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { auditFiles } from "./files.ts";
import { QuantileSketch } from "./sketch.ts";

export interface UsageQuery {
  /** Lines at or after this time (ms since the epoch). */
  since: number;
  tool?: string;
  by: "tool" | "person";
}

export interface UsageRow {
  tool: string;
  /** The revision (by tool), or the person (by person). */
  key: string;
  people: number;
  sessions: number;
  calls: number;
  errors: number;
  p50Ms: number | null;
  p95Ms: number | null;
  sessionSeconds: number;
}

export interface UsageReport {
  since: string;
  rows: UsageRow[];
  /** Lines that were not audit lines (cut off by a crash, or edited). */
  skippedLines: number;
}

interface Tally {
  people: Set<string>;
  sessions: number;
  calls: number;
  errors: number;
  durations: QuantileSketch;
  sessionMs: number;
}

const CALLS = new Set(["tool.call", "resource.read", "prompt.get"]);

/** An audit line as read back: only its time and event are sure to be there. */
export interface Line {
  time: string;
  event: string;
  person?: unknown;
  tool?: unknown;
  revision?: unknown;
  outcome?: unknown;
  ms?: unknown;
}

/** Whole milliseconds, a tenth under 10 ms: the sketch's 1 % shows no more. */
function shown(ms: number | undefined): number | null {
  if (ms === undefined) return null;
  return ms >= 10 ? Math.round(ms) : Math.round(ms * 10) / 10;
}

export class UsageTally {
  readonly #query: UsageQuery;
  readonly #since: string;
  readonly #tallies = new Map<string, Tally>();
  skippedLines = 0;

  constructor(query: UsageQuery) {
    this.#query = query;
    this.#since = new Date(query.since).toISOString();
  }

  add(text: string): void {
    const line = parseLine(text);
    if (line) this.addLine(line);
    else this.skippedLines++;
  }

  addLine(line: Line): void {
    // ISO times in UTC order as strings do.
    if (line.time < this.#since || typeof line.tool !== "string") return;
    if (this.#query.tool !== undefined && line.tool !== this.#query.tool) return;
    const person = typeof line.person === "string" ? line.person : undefined;
    const second = this.#query.by === "person" ? (person ?? "-") : typeof line.revision === "string" ? line.revision : "-";
    const ms = typeof line.ms === "number" ? line.ms : undefined;
    if (!CALLS.has(line.event) && line.event !== "session.start" && !(line.event === "session.stop" && ms !== undefined)) return;
    const key = `${line.tool}\n${second}`;
    let t = this.#tallies.get(key);
    if (!t) this.#tallies.set(key, (t = { people: new Set(), sessions: 0, calls: 0, errors: 0, durations: new QuantileSketch(), sessionMs: 0 }));
    if (CALLS.has(line.event)) {
      t.calls++;
      if (line.outcome === "error") t.errors++;
      if (ms !== undefined) t.durations.add(ms);
    } else if (line.event === "session.start") t.sessions++;
    else t.sessionMs += ms!;
    if (person !== undefined) t.people.add(person);
  }

  report(): UsageReport {
    const rows = [...this.#tallies].map(([key, t]): UsageRow => {
      const [tool, second] = key.split("\n") as [string, string];
      const p50 = t.durations.quantile(0.5);
      const p95 = t.durations.quantile(0.95);
      return {
        tool,
        key: second,
        people: t.people.size,
        sessions: t.sessions,
        calls: t.calls,
        errors: t.errors,
        p50Ms: shown(p50),
        p95Ms: shown(p95),
        sessionSeconds: Math.round(t.sessionMs / 1000),
      };
    });
    rows.sort((a, b) => (a.tool === b.tool ? a.key.localeCompare(b.key) : a.tool.localeCompare(b.tool)));
    return { since: this.#since, rows, skippedLines: this.skippedLines };
  }
}

export function parseLine(text: string): Line | undefined {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return undefined;
  }
  const l = line as Partial<Line> | null;
  return typeof l === "object" && l !== null && typeof l.time === "string" && typeof l.event === "string" ? (l as Line) : undefined;
}

/** Every line of the audit files of `dir` (oldest first), skipping rotated files last written before `since`. */
export async function forEachLine(dir: string, since: number, each: (text: string) => void): Promise<void> {
  for (const file of await auditFiles(dir)) {
    if ((await stat(file)).mtimeMs < since) continue;
    const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) if (line !== "") each(line);
  }
}

export async function usageOf(dir: string, query: UsageQuery): Promise<UsageReport> {
  const tally = new UsageTally(query);
  await forEachLine(dir, query.since, (text) => tally.add(text));
  return tally.report();
}
