// The validator generates its hottest readers with `new Function`; where a process
// forbids code generation it must fall back to plain closures with the same answers.
// This reruns the suite and the validator specs in such a process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

test("with --disallow-code-generation-from-strings the validator gives the same answers", async (t) => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--disallow-code-generation-from-strings", "--import", "tsx", "--test", "--test-reporter=tap", "spec/schema/suite.spec.ts", "spec/schema/compile.spec.ts"],
    // Without NODE_TEST_CONTEXT the child reports as a runner of its own, not to ours.
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000, env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  t.after(() => child.kill());
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(
    code,
    0,
    out
      .split("\n")
      .filter((l) => l.startsWith("not ok"))
      .join("\n"),
  );
  assert.match(out, /# fail 0/);
});
