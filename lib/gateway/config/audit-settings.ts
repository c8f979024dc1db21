// gateway.json's `audit` section: where the audit trail goes. Off unless asked for: a file
// folder (rotated by size, owner-only) or the gateway's stdout, never its stderr, which is
// the access log's.
import { isAbsolute, resolve } from "node:path";
import { s, problem, section, type Fail } from "../../schema/index.ts";

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

const count = (min: number, max: number, fallback: number) =>
  problem(s.integer({ minimum: min, maximum: max }).default(fallback), `must be an integer from ${min} to ${max}`);

/** The `audit` section as written in gateway.json; `sink` defaults to "file" when `dir` is given, else "off". */
export const auditSchema = problem(
  s.object(
    {
      sink: problem(s.enum(["file", "stdout", "off"]).optional(), 'must be "file", "stdout" or "off"'),
      dir: problem(s.string({ minLength: 1 }).optional(), "must name a folder when the sink is a file"),
      maxFileBytes: count(4096, 2 ** 40, NO_AUDIT.maxFileBytes),
      keepFiles: count(1, 100_000, NO_AUDIT.keepFiles),
      queueLines: count(1, 1_000_000, NO_AUDIT.queueLines),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

const AUDIT = section(auditSchema);

export function parseAuditSettings(v: unknown, baseDir: string, fail: Fail): AuditSettings {
  if (v === undefined) return NO_AUDIT;
  const o = AUDIT.check(v, "audit", fail);
  const { sink = o.dir === undefined ? "off" : "file", dir, ...counts } = o;
  if (sink === "file" && dir === undefined) fail("audit.dir", "must name a folder when the sink is a file");
  if (sink !== "file" && dir !== undefined) fail("audit.dir", 'is for the "file" sink only');
  return dir === undefined ? { sink, ...counts } : { sink, ...counts, dir: isAbsolute(dir) ? dir : resolve(baseDir, dir) };
}
