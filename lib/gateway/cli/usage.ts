// `hub_gateway usage`: the audit trail summed per tool and revision (or per person), as a
// table, CSV or JSON. Reads the folder gateway.json's `audit.dir` names, or --audit-dir.
import type { GatewayConfig } from "../config/gateway-config.ts";
import { usageOf, type UsageReport, type UsageRow } from "../audit/usage.ts";
import { NAME, usage, type CliIo } from "./io.ts";

export interface UsageArgs {
  since?: string;
  tool?: string;
  by?: string;
  format?: string;
  auditDir?: string;
  config?: GatewayConfig;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30d`, `12h`, `90m`, `2w`, or a date (`2026-01-31`, ISO time); NaN when it is neither. */
export function sinceOf(text: string, now: number): number {
  const relative = /^(\d{1,6})([mhdw])$/.exec(text);
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2]!]!;
  return /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
}

const COLUMNS = ["people", "sessions", "calls", "errors", "p50Ms", "p95Ms", "sessionSeconds"] as const;
const HEADINGS = ["people", "sessions", "calls", "errors", "p50 ms", "p95 ms", "session time"];

function hours(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${h}h${String(m).padStart(2, "0")}`;
}

function cells(row: UsageRow): string[] {
  return [row.tool, row.key, ...COLUMNS.map((c) => (c === "sessionSeconds" ? hours(row[c]) : String(row[c] ?? "-")))];
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function render(report: UsageReport, format: string, by: string): string[] {
  const second = by === "person" ? "person" : "revision";
  if (format === "json") return [JSON.stringify({ ...report, by, rows: report.rows.map(({ key, ...r }) => ({ ...r, [second]: key })) }, null, 2)];
  if (format === "csv") {
    const head = ["tool", second, ...COLUMNS].join(",");
    return [head, ...report.rows.map((r) => [r.tool, r.key, ...COLUMNS.map((c) => String(r[c] ?? ""))].map(csvCell).join(","))];
  }
  const table = [["tool", second, ...HEADINGS], ...report.rows.map(cells)];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const out = table.map((r) =>
    r
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
  if (report.rows.length === 0) out.push(`(no use since ${report.since})`);
  return out;
}

export async function usageCommand(io: CliIo, args: UsageArgs, now = Date.now()): Promise<number> {
  const since = sinceOf(args.since ?? "30d", now);
  if (Number.isNaN(since)) return usage(io, "--since must be like 30d, 12h, 2w or a date (2026-01-31)");
  const by = args.by ?? "tool";
  if (by !== "tool" && by !== "person") return usage(io, "--by must be tool or person");
  const format = args.format ?? "table";
  if (!["table", "csv", "json"].includes(format)) return usage(io, "--format must be table, csv or json");
  const dir = args.auditDir ?? args.config?.audit.dir;
  if (dir === undefined) return usage(io, "usage needs --audit-dir DIR, or --config FILE whose audit section names a dir");
  let report: UsageReport;
  try {
    report = await usageOf(dir, { since, by, ...(args.tool !== undefined ? { tool: args.tool } : {}) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EACCES" && code !== "ENOTDIR") throw err;
    io.err(`${NAME}: cannot read the audit folder (${code})`);
    return 1;
  }
  for (const line of render(report, format, by)) io.out(line);
  if (report.skippedLines > 0) io.err(`${NAME}: ${report.skippedLines} lines were not audit lines and were skipped`);
  return 0;
}
