// `hub_gateway usage`: the audit trail's files, rotated ones included, summed per tool and
// revision or per person, filtered by time and tool, as a table, CSV or JSON; p50/p95 from a
// bounded sketch within 1 % of the exact figures.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { QuantileSketch } from "../../../lib/gateway/audit/sketch.ts";
import { sinceOf } from "../../../lib/gateway/cli/usage.ts";
import { recordingIo } from "../../helpers/cli-io.ts";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const DAY = 86_400_000;

function at(daysAgo: number): string {
  return new Date(NOW - daysAgo * DAY).toISOString();
}

function line(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ outcome: "ok", ...fields })}\n`;
}

/** A folder of two rotated files and the current one: alice and bob on sim, carol on plot, one old line. */
function trail(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "usage-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const a = join(dir, "a");
  mkdirSync(a, { mode: 0o700 });
  writeFileSync(
    join(a, "audit-20261101T000000000Z-1.jsonl"),
    line({ time: at(400), event: "tool.call", person: "old", tool: "sim", revision: "default", ms: 1 }) +
      line({ time: at(10), event: "session.start", person: "alice", tool: "sim", revision: "default", ms: 900 }) +
      line({ time: at(10), event: "tool.call", person: "alice", tool: "sim", revision: "default", ms: 100 }),
  );
  writeFileSync(
    join(a, "audit-20261101T000000000Z-2.jsonl"),
    `${line({ time: at(9), event: "tool.call", person: "bob", tool: "sim", revision: "default", ms: 200, outcome: "error" })}not json\n{"time":1}\n`,
  );
  writeFileSync(
    join(a, "audit.jsonl"),
    line({ time: at(9), event: "session.stop", person: "alice", tool: "sim", revision: "default", ms: 7_200_000 }) +
      line({ time: at(2), event: "resource.read", person: "bob", tool: "sim", revision: "beta", ms: 50 }) +
      line({ time: at(1), event: "prompt.get", person: "carol", tool: "plot", revision: "default", ms: 10 }) +
      line({ time: at(1), event: "sign-in", person: "carol", outcome: "ok" }) +
      line({ time: at(1), event: "grant.approved", person: "carol", tool: "plot", outcome: "ok" }),
  );
  return a;
}

async function usage(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const io = recordingIo();
  const code = await run(["usage", ...args], {}, io);
  return { code, out: io.lines, err: io.errors };
}

test("per tool and revision: people, sessions, calls, errors, p50/p95 and session time, rotated files included", async (t) => {
  const dir = trail(t);
  const { code, out, err } = await usage(["--audit-dir", dir, "--since", "2026-10-01", "--format", "json"]);
  assert.equal(code, 0);
  assert.deepEqual(err, ["hub_gateway: 2 lines were not audit lines and were skipped"]);
  const report = JSON.parse(out.join("\n"));
  assert.equal(report.by, "tool");
  assert.deepEqual(
    report.rows.map((r: Record<string, unknown>) => [r.tool, r.revision, r.people, r.sessions, r.calls, r.errors, r.sessionSeconds]),
    [
      ["plot", "default", 1, 0, 1, 0, 0],
      ["sim", "beta", 1, 0, 1, 0, 0],
      ["sim", "default", 2, 1, 2, 1, 7200],
    ],
  );
  const sim = report.rows[2];
  assert.ok(Math.abs(sim.p50Ms - 100) <= 1 && Math.abs(sim.p95Ms - 200) <= 2, `${sim.p50Ms} ${sim.p95Ms}`);
});

test("--by person, --tool, CSV and the table", async (t) => {
  const dir = trail(t);
  const csv = await usage(["--audit-dir", dir, "--since", "2026-10-01", "--by", "person", "--tool", "sim", "--format", "csv"]);
  assert.equal(csv.code, 0);
  assert.deepEqual(csv.out, [
    "tool,person,people,sessions,calls,errors,p50Ms,p95Ms,sessionSeconds",
    "sim,alice,1,1,1,0,100,100,7200",
    "sim,bob,1,0,2,1,50,200,0",
  ]);
  const table = await usage(["--audit-dir", dir, "--since", "2026-10-01"]);
  assert.equal(table.code, 0);
  assert.match(table.out[0]!, /^tool\s+revision\s+people\s+sessions\s+calls\s+errors\s+p50 ms\s+p95 ms\s+session time$/);
  assert.match(table.out[3]!, /^sim\s+default\s+2\s+1\s+2\s+1\s+100\s+200\s+2h00$/);
  const none = await usage(["--audit-dir", dir, "--since", "2099-01-01"]);
  assert.match(none.out.at(-1)!, /^\(no use since 2099-01-01T00:00:00.000Z\)$/);
  const person = await usage(["--audit-dir", dir, "--since", "2026-10-01", "--by", "person", "--format", "json", "--tool", "plot"]);
  assert.deepEqual(JSON.parse(person.out.join("\n")).rows[0].person, "carol");
});

test("the audit folder from gateway.json, and clear errors for bad options and a missing folder", async (t) => {
  const dir = trail(t);
  const config = join(dir, "..", "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: { sim: { revisions: { default: { url: "http://127.0.0.1:1/" } } } }, audit: { dir: "a" } }));
  const fromConfig = await usage(["--config", config, "--since", "2026-10-01", "--format", "json"]);
  assert.equal(fromConfig.code, 0);
  assert.equal(JSON.parse(fromConfig.out.join("\n")).rows.length, 3);
  for (const [args, message] of [
    [["--audit-dir", dir, "--since", "yesterday"], /--since must be/],
    [["--audit-dir", dir, "--by", "day"], /--by must be/],
    [["--audit-dir", dir, "--format", "xml"], /--format must be/],
    [[], /usage needs --audit-dir/],
    [["extra"], /usage takes options only/],
  ] as const) {
    const got = await usage([...args]);
    assert.equal(got.code, 2);
    assert.match(got.err[0]!, message);
  }
  const missing = await usage(["--audit-dir", join(dir, "nope")]);
  assert.equal(missing.code, 1);
  assert.deepEqual(missing.err, ["hub_gateway: cannot read the audit folder (ENOENT)"]);
});

test("since: ages and dates", () => {
  assert.equal(sinceOf("30d", NOW), NOW - 30 * DAY);
  assert.equal(sinceOf("12h", NOW), NOW - 12 * 3_600_000);
  assert.equal(sinceOf("90m", NOW), NOW - 90 * 60_000);
  assert.equal(sinceOf("2w", NOW), NOW - 14 * DAY);
  assert.equal(sinceOf("2026-01-31", NOW), Date.parse("2026-01-31"));
  assert.ok(Number.isNaN(sinceOf("30x", NOW)));
});

test("the quantile sketch: within 1 % on 200,000 values, in bounded counters", () => {
  const sketch = new QuantileSketch();
  const values: number[] = [];
  let seed = 1;
  for (let i = 0; i < 200_000; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const v = i % 10 === 0 ? 0 : (seed % 100_000) / 7;
    values.push(v);
    sketch.add(v);
  }
  sketch.add(Number.NaN);
  values.sort((a, b) => a - b);
  for (const q of [0.05, 0.5, 0.95, 0.99]) {
    const exact = values[Math.ceil(q * values.length) - 1]!;
    const got = sketch.quantile(q)!;
    assert.ok(Math.abs(got - exact) <= exact * 0.01 + 1e-9, `q${q}: ${got} vs ${exact}`);
  }
  assert.equal(sketch.quantile(0), 0);
  assert.equal(sketch.count, 200_000);
  assert.equal(new QuantileSketch().quantile(0.5), undefined);
  // Values spread past the bucket bound: the lowest merge, the count is kept.
  const wide = new QuantileSketch();
  for (let e = -3; e < 180; e += 0.04) wide.add(10 ** e);
  assert.ok(wide.quantile(1)! > 1e179);
});
