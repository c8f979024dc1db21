// `hub_gateway usage` on a generated year of audit lines (rotated files as the gateway writes
// them: 40 tools of two revisions, 2,000 people, sessions, errors), against only reading the
// same lines in the same run: its time as a multiple of the read's, and its peak RSS above it.
// Each runs in a fresh node from the built package, so the RSS is the report's alone.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BuiltPackage } from "../build.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";

const DAY_MS = 86_400_000;

/** The trail a busy year leaves: `lines` lines spread over 365 days, written through the gateway's own writer. */
async function writeYear(pkg: BuiltPackage, dir: string, lines: number): Promise<void> {
  const { AuditTrail } = (await import(join(pkg.dir, "dist", "lib", "gateway", "audit", "trail.js"))) as typeof import("../../lib/gateway/audit/trail.ts");
  const { NO_AUDIT } = (await import(
    join(pkg.dir, "dist", "lib", "gateway", "config", "audit-settings.js")
  )) as typeof import("../../lib/gateway/config/audit-settings.ts");
  const trail = new AuditTrail({ ...NO_AUDIT, sink: "file", dir, maxFileBytes: 32 * 1024 * 1024, keepFiles: 1000, queueLines: 1_000_000 });
  const start = Date.now() - 365 * DAY_MS;
  const realNow = Date.now;
  let seed = 7;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  try {
    for (let i = 0; i < lines; i++) {
      const at = start + Math.floor((i / lines) * 365 * DAY_MS);
      Date.now = () => at;
      const tool = `tool${rand(40)}`;
      const person = `person${rand(2000)}`;
      const revision = rand(4) === 0 ? "beta" : "default";
      const k = rand(100);
      if (k < 3) trail.record({ event: "session.start", person, tool, revision, backend: "app", outcome: "ok", ms: 800 + rand(2000) });
      else if (k < 6)
        trail.record({ event: "session.stop", person, tool, revision, backend: "app", outcome: "ok", ms: 60_000 + rand(3_600_000), reason: "idle" });
      else {
        const ms = 5 + rand(200) + (rand(20) === 0 ? rand(30_000) : 0);
        const failed = rand(50) === 0;
        trail.record({
          event: "tool.call",
          person,
          tool,
          revision,
          method: "tools/call",
          name: `run_${rand(5)}`,
          outcome: failed ? "error" : "ok",
          status: failed ? 502 : 200,
          ms,
          bytesIn: 200 + rand(2000),
          bytesOut: 300 + rand(20000),
          client: "claude-ai/1.0",
        });
      }
      if (i % 10_000 === 9_999) await trail.flush();
    }
  } finally {
    Date.now = realNow;
  }
  await trail.close();
}

/** Runs `body` (an ES module's text) in a fresh node; answers what it printed, parsed, and its peak RSS. */
function measure(body: string): { ms: number; rssMb: number; out: Record<string, unknown> } {
  const text = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `${body}\nconsole.log(JSON.stringify({ ms: performance.now() - t0, rssKb: process.resourceUsage().maxRSS, out }));`],
    {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    },
  );
  const got = JSON.parse(text.trim().split("\n").at(-1)!) as { ms: number; rssKb: number; out: Record<string, unknown> };
  return { ms: got.ms, rssMb: got.rssKb / 1024, out: got.out };
}

export async function usageRow(pkg: BuiltPackage, quick: boolean): Promise<Row> {
  const lines = quick ? 100_000 : 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-bench-audit-"));
  try {
    await writeYear(pkg, join(dir, "trail"), lines);
    const files = JSON.stringify(join(pkg.dir, "dist", "lib", "gateway", "audit", "files.js"));
    const usage = JSON.stringify(join(pkg.dir, "dist", "lib", "gateway", "audit", "usage.js"));
    const trail = JSON.stringify(join(dir, "trail"));
    const read = measure(`import { createReadStream } from "node:fs"; import { createInterface } from "node:readline";
const { auditFiles } = await import(${files}); const t0 = performance.now(); let out = { lines: 0 };
for (const f of await auditFiles(${trail})) for await (const l of createInterface({ input: createReadStream(f, { encoding: "utf8" }), crlfDelay: Infinity })) if (l !== "") out.lines++;`);
    const report = measure(`const { usageOf } = await import(${usage}); const t0 = performance.now();
const r = await usageOf(${trail}, { since: Date.now() - 400 * 86400000, by: "tool" }); const out = { rows: r.rows.length, calls: r.rows.reduce((n, x) => n + x.calls, 0) };`);
    const ratio = report.ms / read.ms;
    const extra = report.rssMb - read.rssMb;
    return {
      name: `hub_gateway usage: a year of audit lines (${lines.toLocaleString("en")})`,
      rssMb: report.rssMb,
      ratio: read.ms / report.ms,
      result: `${(report.ms / 1000).toFixed(1)} s (${Math.round(lines / (report.ms / 1000)).toLocaleString("en")} lines/s; reading alone ${(read.ms / 1000).toFixed(1)} s), peak RSS ${report.rssMb.toFixed(0)} MB (reading alone ${read.rssMb.toFixed(0)} MB), ${report.out.rows} rows`,
      note: "per tool and revision: people, sessions, calls, errors, p50/p95 from a log-bucket sketch (1 % relative error), session time",
      checks: [
        atMost("time over reading alone", { value: ratio, digits: 2, unit: "×" }, TARGETS.usageReadRatio),
        atMost("RSS over reading alone", { value: extra, digits: 0, unit: " MB" }, TARGETS.usageExtraRssMb),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
