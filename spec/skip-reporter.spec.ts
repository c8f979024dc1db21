// spec/run.mjs names every skipped test and what it needs, from this reporter's lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, tempDir } from "./helpers/launcher-fixtures.ts";

const run = promisify(execFile);

test("the skip reporter writes file, name and reason of each skipped test, and nothing for others", { timeout: 30_000 }, async (t) => {
  const file = join(tempDir(t), "probe.test.mjs");
  writeFileSync(
    file,
    `import { test } from "node:test";
test("ran", () => {});
test("declared", { skip: "needs postgresql" }, () => {});
test("decided inside", (t) => t.skip("needs python3"));
test("bare", { skip: true }, () => {});
`,
  );
  // Without the runner's context variable, the inner run reports through the reporter rather than to this one.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const { stdout } = await run(process.execPath, ["--test", `--test-reporter=${join(ROOT, "spec", "skip-reporter.mjs")}`, file], { env });
  assert.deepEqual(
    stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l)),
    [
      { file, name: "declared", reason: "needs postgresql" },
      { file, name: "decided inside", reason: "needs python3" },
      { file, name: "bare", reason: "no reason given" },
    ],
  );
});
