// gateway.json's `audit` section: where the audit trail goes. Off unless asked for: a file
// folder (rotated by size, owner-only) or the gateway's stdout, never its stderr, which is
// the access log's.
import { isAbsolute, resolve } from "node:path";

type Fail = (key: string, problem: string) => never;

export interface AuditSettings {
  readonly sink: "off" | "stdout" | "file";
  /** The folder of `audit.jsonl` and its rotated files; `file` only, absolute. */
  readonly dir?: string;
  /** `audit.jsonl` is rotated once it would grow past this; 64 MiB. */
  readonly maxFileBytes: number;
  /** Rotated files kept (the oldest go first); 100. */
  readonly keepFiles: number;
  /** Lines waiting for the disk at most; past this, lines are dropped and counted. 10,000. */
  readonly queueLines: number;
}

export const NO_AUDIT: AuditSettings = { sink: "off", maxFileBytes: 64 * 1024 * 1024, keepFiles: 100, queueLines: 10_000 };

const KEYS = ["sink", "dir", "maxFileBytes", "keepFiles", "queueLines"];

function count(o: Record<string, unknown>, key: string, min: number, max: number, fallback: number, fail: Fail): number {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) fail(`audit.${key}`, `must be an integer from ${min} to ${max}`);
  return v;
}

export function parseAuditSettings(v: unknown, baseDir: string, fail: Fail): AuditSettings {
  if (v === undefined) return NO_AUDIT;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("audit", "must be an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.includes(k)) fail(`audit.${k}`, "is not a known key");
  const sink = o.sink ?? (o.dir === undefined ? "off" : "file");
  if (sink !== "off" && sink !== "stdout" && sink !== "file") return fail("audit.sink", 'must be "file", "stdout" or "off"');
  if (sink === "file" && (typeof o.dir !== "string" || o.dir === "")) fail("audit.dir", "must name a folder when the sink is a file");
  if (sink !== "file" && o.dir !== undefined) fail("audit.dir", 'is for the "file" sink only');
  const settings: AuditSettings = {
    sink,
    maxFileBytes: count(o, "maxFileBytes", 4096, 2 ** 40, NO_AUDIT.maxFileBytes, fail),
    keepFiles: count(o, "keepFiles", 1, 100_000, NO_AUDIT.keepFiles, fail),
    queueLines: count(o, "queueLines", 1, 1_000_000, NO_AUDIT.queueLines, fail),
  };
  const dir = o.dir as string | undefined;
  return dir === undefined ? settings : { ...settings, dir: isAbsolute(dir) ? dir : resolve(baseDir, dir) };
}
