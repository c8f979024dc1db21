// Runs every spec under c8 with the coverage gate. Node 20's --test does not glob, so
// the files are listed here. Extra arguments narrow the run: `node spec/run.mjs http`.
// At the end it names every skipped test with what it needs, and how long the run took.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);

function specs(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return specs(path);
    return entry.name.endsWith(".spec.ts") ? [relative(root, path)] : [];
  });
}

const files = specs(join(root, "spec"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no spec files matched");
  process.exit(1);
}
const gate = filters.length === 0 ? ["--check-coverage", "--lines", "97", "--branches", "92"] : [];
const c8 = join(root, "node_modules", "c8", "bin", "c8.js");
const skipDir = mkdtempSync(join(tmpdir(), "hubmcp-skips-"));
const skipFile = join(skipDir, "skips.jsonl");
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    c8,
    ...gate,
    "--include",
    "lib/**",
    "--exclude",
    "lib/**/*.d.ts",
    "--reporter",
    "text-summary",
    "--reporter",
    "text",
    "--report-dir",
    "coverage",
    process.execPath,
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=2",
    "--test-timeout=120000",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${join(root, "spec", "skip-reporter.mjs")}`,
    `--test-reporter-destination=${skipFile}`,
    ...files,
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, HUBMCP_TEST: "1" } },
);

let skips = [];
try {
  skips = readFileSync(skipFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {
  // No test ran far enough to write the file: nothing was skipped.
}
rmSync(skipDir, { recursive: true, force: true });
if (skips.length > 0) {
  console.log(`\nskipped ${skips.length} test${skips.length === 1 ? "" : "s"} (each names what it needs):`);
  for (const s of skips) console.log(`  ${relative(root, s.file) || "?"}: ${s.name}: ${s.reason}`);
}
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\n${files.length} spec file${files.length === 1 ? "" : "s"} in ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
process.exit(result.status ?? 1);
