// gateway.json's `audit` section: where the audit trail goes. Off unless asked for: a file
// folder (rotated by size, owner-only) or the gateway's stdout, never its stderr, which is
// the access log's.
import { isAbsolute, resolve } from "node:path";
import { s, type Converted, type Filled, type Infer, problem, section, type Fail } from "../../schema/index.ts";

const count = (min: number, max: number, fallback: number) =>
  problem(s.integer({ minimum: min, maximum: max }).default(fallback), `must be an integer from ${min} to ${max}`);

/** The `audit` section as written in gateway.json; `sink` defaults to "file" when `dir` is given, else "off". */
export const auditSchema = problem(
  s.object(
    {
      /** `file`: rotated files in `dir`; `stdout`: the gateway's stdout (never stderr, the access log's); `off`. */
      sink: problem(s.enum(["file", "stdout", "off"]).optional(), 'must be "file", "stdout" or "off"'),
      /** The folder of `audit.jsonl` and its rotated files; `file` only, absolute once parsed. */
      dir: problem(s.string({ minLength: 1 }).optional(), "must name a folder when the sink is a file"),
      /** `audit.jsonl` is rotated once it would grow past this; 64 MiB. */
      maxFileBytes: count(4096, 2 ** 40, 64 * 1024 * 1024),
      /** Rotated files kept (the oldest go first); 100. */
      keepFiles: count(1, 100_000, 100),
      /** Lines waiting for the disk at most; past this, lines are dropped and counted. 10,000. */
      queueLines: count(1, 1_000_000, 10_000),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

/** The section as the code reads it: the sink decided, the folder absolute. */
export type AuditSettings = Converted<Filled<Infer<typeof auditSchema>, "sink">>;

const AUDIT = section(auditSchema);

/** No trail: the declared defaults. */
export const NO_AUDIT: AuditSettings = { ...AUDIT.check({}, "audit", () => undefined as never), sink: "off" };

export function parseAuditSettings(v: unknown, baseDir: string, fail: Fail): AuditSettings {
  if (v === undefined) return NO_AUDIT;
  const o = AUDIT.check(v, "audit", fail);
  const { sink = o.dir === undefined ? "off" : "file", dir, ...counts } = o;
  if (sink === "file" && dir === undefined) fail("audit.dir", "must name a folder when the sink is a file");
  if (sink !== "file" && dir !== undefined) fail("audit.dir", 'is for the "file" sink only');
  return dir === undefined ? { sink, ...counts } : { sink, ...counts, dir: isAbsolute(dir) ? dir : resolve(baseDir, dir) };
}
