import { test } from "node:test";
import assert from "node:assert/strict";
import { capture } from "../../lib/launcher/exec.ts";

test("capture reports output, exit codes, a missing program and a timeout", async () => {
  assert.deepEqual(await capture("sh", ["-c", "echo out; echo err 1>&2"]), { kind: "done", code: 0, stdout: "out\n", stderr: "err\n" });
  assert.deepEqual(await capture("sh", ["-c", "exit 3"]), { kind: "done", code: 3, stdout: "", stderr: "" });
  assert.deepEqual(await capture("hubmcp-no-such-program-x", []), { kind: "missing" });
  assert.deepEqual(await capture("sh", ["-c", "exec sleep 5"], { timeoutMs: 30 }), { kind: "failed", reason: "timed out" });
});
