// What the operator's page shows of the audit trail: usage per tool over the last day, week
// and month, calls per day for the chart, and the latest errors. One pass over the month's
// files (the same reader and tally as `hub_gateway usage`), kept for half a minute so a page
// reloaded often does not read the trail each time.
import { forEachLine, parseLine, type Line, UsageTally, type UsageRow } from "../audit/usage.ts";

const DAY_MS = 86_400_000;
const ERRORS_SHOWN = 20;
const KEPT_MS = 30_000;

export interface RecentError {
  time: string;
  event: string;
  person?: string;
  tool?: string;
  name?: string;
  status?: number;
  reason?: string;
}

export interface AdminUsage {
  day: UsageRow[];
  week: UsageRow[];
  month: UsageRow[];
  /** The last 30 days, oldest first: `YYYY-MM-DD`, calls and errors. */
  perDay: Array<{ day: string; calls: number; errors: number }>;
  /** Newest first. */
  errors: RecentError[];
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function errorOf(l: Line & { name?: unknown; status?: unknown; reason?: unknown }): RecentError {
  const status = typeof l.status === "number" ? l.status : undefined;
  return { time: l.time, event: l.event, person: str(l.person), tool: str(l.tool), name: str(l.name), status, reason: str(l.reason) };
}

export async function readAdminUsage(dir: string, now = Date.now()): Promise<AdminUsage> {
  const monthStart = now - 30 * DAY_MS;
  const tallies = [1, 7, 30].map((days) => new UsageTally({ since: now - days * DAY_MS, by: "tool" }));
  const days = new Map<string, { calls: number; errors: number }>();
  for (let i = 29; i >= 0; i--) days.set(new Date(now - i * DAY_MS).toISOString().slice(0, 10), { calls: 0, errors: 0 });
  const errors: RecentError[] = [];
  const monthIso = new Date(monthStart).toISOString();
  await forEachLine(dir, monthStart, (text) => {
    const line = parseLine(text);
    if (!line || line.time < monthIso) return;
    for (const t of tallies) t.addLine(line);
    const day = days.get(line.time.slice(0, 10));
    const isCall = line.event === "tool.call" || line.event === "resource.read" || line.event === "prompt.get";
    if (day && isCall) {
      day.calls++;
      if (line.outcome === "error") day.errors++;
    }
    if (line.outcome === "error") {
      errors.push(errorOf(line));
      if (errors.length > ERRORS_SHOWN) errors.shift();
    }
  });
  const [day, week, month] = tallies.map((t) => t.report().rows) as [UsageRow[], UsageRow[], UsageRow[]];
  return { day, week, month, perDay: [...days].map(([d, n]) => ({ day: d, ...n })), errors: errors.reverse() };
}

/** readAdminUsage, remembered for half a minute. */
export class AdminUsageView {
  readonly #dir: string;
  #kept: { at: number; usage: Promise<AdminUsage> } | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  read(now = Date.now()): Promise<AdminUsage> {
    if (!this.#kept || now - this.#kept.at > KEPT_MS) {
      const usage = readAdminUsage(this.#dir, now);
      // A failed read is not kept: the next page load tries again.
      usage.catch(() => (this.#kept = undefined));
      this.#kept = { at: now, usage };
    }
    return this.#kept.usage;
  }
}
