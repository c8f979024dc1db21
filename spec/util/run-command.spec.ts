// The one command runner (lib/util/run-command.ts): argv only, output bounded, time bounded
// for the whole process group, another account when asked, and how it ended as a value.
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCommand, runCommandSync } from "../../lib/util/run-command.ts";
import { alive, tempDir } from "../helpers/launcher-fixtures.ts";
import { IS_ROOT, osUser } from "../helpers/os-user.ts";

/** Bounded wait for a process to be gone (init reaps an orphan a moment after its signal). */
async function gone(pid: number): Promise<boolean> {
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise<void>((r) => setImmediate(r));
  }
  return false;
}

test("output, status and stderr come back apart; arguments are never parsed by a shell", async () => {
  assert.deepEqual(await runCommand("sh", ["-c", "echo out; echo err >&2; exit 3"], { timeoutMs: 10_000 }), {
    code: 3,
    stdout: "out\n",
    stderr: "err\n",
    truncated: false,
  });
  const literal = await runCommand("echo", ["$(id)", "; rm -rf /", "`x`"], { timeoutMs: 10_000 });
  assert.equal(literal.stdout, "$(id) ; rm -rf / `x`\n");
});

test("a missing program and one that cannot be started are told apart", async (t) => {
  const missing = await runCommand("hubmcp-no-such-program-x", [], { timeoutMs: 10_000 });
  assert.deepEqual([missing.code, missing.failure], [null, "HUBMCP_COMMAND_NOT_FOUND"]);
  const script = join(tempDir(t, "hubmcp-run-"), "not-executable");
  writeFileSync(script, "#!/bin/sh\necho hi\n");
  chmodSync(script, 0o600);
  const refused = await runCommand(script, [], { timeoutMs: 10_000 });
  assert.deepEqual([refused.code, refused.failure], [null, "HUBMCP_COMMAND_NOT_STARTED"]);
  // An impossible account: spawn throws at once rather than emitting.
  const invalid = await runCommand("true", [], { timeoutMs: 10_000, uid: 1.5 });
  assert.equal(invalid.failure, "HUBMCP_COMMAND_NOT_STARTED");
});

test("past its time the whole group is ended, a grandchild holding the pipes included", async () => {
  const ran = await runCommand("sh", ["-c", "sleep 60 & echo $!; wait"], { timeoutMs: 300 });
  assert.equal(ran.failure, "HUBMCP_COMMAND_TIMEOUT");
  assert.equal(ran.code, null);
  assert.ok(await gone(Number(ran.stdout.trim())), "the grandchild was ended with its group");
  // The leader has exited, but what it left behind still writes to the pipes.
  const orphan = await runCommand("sh", ["-c", "sleep 60 & echo $!"], { timeoutMs: 300 });
  assert.equal(orphan.failure, "HUBMCP_COMMAND_TIMEOUT");
  assert.ok(await gone(Number(orphan.stdout.trim())));
});

test("output past the bound is dropped, not kept, and says so", async () => {
  const ran = await runCommand("head", ["-c", "100000", "/dev/zero"], { timeoutMs: 10_000, maxOutputBytes: 1000 });
  assert.equal(ran.code, 0);
  assert.equal(ran.stdout.length, 1000);
  assert.equal(ran.truncated, true);
});

test("as another account, asynchronously and at exit time", { skip: !IS_ROOT && "needs root to switch accounts" }, async (t) => {
  const user = osUser(t);
  const ran = await runCommand("id", ["-u"], { timeoutMs: 10_000, uid: user.uid, gid: user.gid, cwd: "/" });
  assert.equal(ran.stdout.trim(), String(user.uid));
  const dir = tempDir(t, "hubmcp-run-sync-");
  chmodSync(dir, 0o777);
  assert.equal(runCommandSync("sh", ["-c", `id -u > ${dir}/who`], { timeoutMs: 10_000, uid: user.uid, gid: user.gid, cwd: "/" }).code, 0);
  assert.equal((await runCommand("cat", [join(dir, "who")], { timeoutMs: 10_000 })).stdout.trim(), String(user.uid));
  assert.equal(runCommandSync("id", ["-u"], { timeoutMs: 10_000, uid: user.uid, gid: user.gid, cwd: "/" }).stdout.trim(), String(user.uid));
});

test("synchronously: status, output, and each way of not running to an end", () => {
  assert.deepEqual(runCommandSync("sh", ["-c", "echo out; echo err >&2; exit 2"], { timeoutMs: 10_000 }), {
    code: 2,
    stdout: "out\n",
    stderr: "err\n",
    truncated: false,
  });
  assert.equal(runCommandSync("hubmcp-no-such-program-x", [], { timeoutMs: 10_000 }).failure, "HUBMCP_COMMAND_NOT_FOUND");
  assert.equal(runCommandSync("/", [], { timeoutMs: 10_000 }).failure, "HUBMCP_COMMAND_NOT_STARTED");
  assert.equal(runCommandSync("true", [], { timeoutMs: 10_000, uid: 1.5 }).failure, "HUBMCP_COMMAND_NOT_STARTED");
  assert.equal(runCommandSync("sleep", ["5"], { timeoutMs: 100 }).failure, "HUBMCP_COMMAND_TIMEOUT");
  const big = runCommandSync("head", ["-c", "100000", "/dev/zero"], { timeoutMs: 10_000, maxOutputBytes: 1000 });
  assert.equal(big.truncated, true);
});
