// Runs every spec under c8 with the coverage gate. Node 20's --test does not glob, so
// the files are listed here. Extra arguments narrow the run: `node spec/run.mjs http`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
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
    ...files,
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, HUBMCP_TEST: "1" } },
);
process.exit(result.status ?? 1);
