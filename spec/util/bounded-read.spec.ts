// Reading a file no larger than a bound: the size from the open descriptor refuses a large
// file before a byte is read, and the read stops one byte past the bound whatever the size
// said (a /proc file says 0 and holds more), so a file growing after it was measured cannot
// overrun. Pipes and links are refused, never waited on or followed.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileAtMost } from "../../lib/util/bounded-read.ts";
import { readSkillFile } from "../../lib/registry/skills.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-bounded-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a file within the bound is read whole; one byte over is too large", (t) => {
  const file = join(tempDir(t), "f.txt");
  writeFileSync(file, "0123456789");
  const read = readFileAtMost(file, 10);
  assert.equal(read.kind, "ok");
  assert.equal(read.kind === "ok" && read.bytes.toString(), "0123456789");
  assert.deepEqual(readFileAtMost(file, 9), { kind: "too_large" });
  writeFileSync(file, "");
  assert.equal(readFileAtMost(file, 1).kind, "ok");
});

test("the read is bounded even when the size said less (a /proc file says 0)", () => {
  assert.equal(statSync("/proc/self/status").size, 0);
  assert.deepEqual(readFileAtMost("/proc/self/status", 16), { kind: "too_large" });
  const whole = readFileAtMost("/proc/self/status", 1024 * 1024);
  assert.equal(whole.kind, "ok");
  assert.match(whole.kind === "ok" ? whole.bytes.toString() : "", /^Name:/);
});

test("a pipe, a directory and a link are refused without waiting or following", (t) => {
  const dir = tempDir(t);
  assert.equal(spawnSync("mkfifo", [join(dir, "pipe")]).status, 0);
  assert.deepEqual(readFileAtMost(join(dir, "pipe"), 100), { kind: "not_a_file" });
  assert.deepEqual(readFileAtMost(dir, 100), { kind: "not_a_file" });
  writeFileSync(join(dir, "real.txt"), "x");
  symlinkSync(join(dir, "real.txt"), join(dir, "link.txt"));
  assert.throws(() => readFileAtMost(join(dir, "link.txt"), 100), { code: "ELOOP" });

  // A skill file that became a pipe or vanished after the walk: a short error naming it alone.
  assert.throws(
    () => readSkillFile({ rel: "a/pipe", real: join(dir, "pipe"), size: 0 }, 100),
    /^TypeError: Skill file a\/pipe: changed or unreadable while it was read$/,
  );
  assert.throws(
    () => readSkillFile({ rel: "gone.md", real: join(dir, "gone.md"), size: 0 }, 100),
    (err: Error) => err.message === "Skill file gone.md: changed or unreadable while it was read" && !err.message.includes(dir),
  );
  assert.equal(readSkillFile({ rel: "real.txt", real: join(dir, "real.txt"), size: 0 }, 0), null);
  assert.equal(readFileSync(join(dir, "real.txt"), "utf8"), "x");
});
