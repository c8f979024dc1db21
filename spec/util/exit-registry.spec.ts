// The one exit strategy (lib/util/exit-registry.ts): however a process ends, a crash
// included, the groups it started are ended and its other hooks run, one failing hook
// stopping none of the others; a child that ended leaves no hook behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { exitHookCount, onParentExit } from "../../lib/util/exit-registry.ts";
import { spawnGroup } from "../../lib/util/process-group.ts";
import { alive, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

const crashing = (marker: string): string => `
import { spawnGroup } from ${JSON.stringify(join(ROOT, "lib/util/process-group.ts"))};
import { onParentExit } from ${JSON.stringify(join(ROOT, "lib/util/exit-registry.ts"))};
import { writeFileSync } from "node:fs";
onParentExit(() => { throw new Error("a failing hook"); });
onParentExit(() => writeFileSync(${JSON.stringify(marker)}, "ran"));
const child = spawnGroup("sh", ["-c", "sleep 60 & echo $!; wait"], { env: process.env, onStdout: (text) => {
  process.stdout.write(text);
  throw new Error("crash");
} });
`;

test("a crashing process takes its children's groups with it and runs every hook", async (t) => {
  const marker = join(tempDir(t, "hubmcp-exit-"), "marker");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", crashing(marker)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  assert.notEqual(code, 0, "it crashed");
  const pid = Number(out.trim());
  assert.ok(pid > 0, out);
  for (const end = Date.now() + 10_000; alive(pid) && Date.now() < end; ) await new Promise<void>((r) => setImmediate(r));
  assert.equal(alive(pid), false, "the grandchild did not outlive its parent");
  assert.equal(existsSync(marker), true, "the hook after the failing one ran");
});

test("a child that ended, and a hook taken back, leave nothing registered", async () => {
  const before = exitHookCount();
  const forget = onParentExit(() => {});
  assert.equal(exitHookCount(), before + 1);
  forget();
  forget();
  assert.equal(exitHookCount(), before);
  const child = spawnGroup("true", [], { env: process.env, output: "pipe" });
  assert.equal(exitHookCount(), before + 1);
  assert.equal(await child.exited, 0);
  assert.equal(exitHookCount(), before);
});
