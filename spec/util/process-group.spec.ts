import assert from "node:assert/strict";
import { test } from "node:test";
import { spawnGroup } from "../../lib/util/process-group.ts";
import { alive } from "../helpers/launcher-fixtures.ts";

test("stop() ends the whole process group, including grandchildren, and is safe twice", async (t) => {
  let output = "";
  let sawPid: (pid: number) => void;
  const grandchild = new Promise<number>((resolve) => (sawPid = resolve));
  const child = spawnGroup("sh", ["-c", "sleep 60 & echo $!; wait"], {
    env: process.env,
    onStdout: (text) => {
      output += text;
      const m = /^(\d+)$/m.exec(output);
      if (m) sawPid(Number(m[1]));
    },
  });
  t.after(() => child.stop(100));
  const pid = await grandchild;
  assert.ok(alive(child.pid) && alive(pid));
  const stopping = child.stop();
  assert.equal(child.stop(), stopping);
  await stopping;
  assert.equal(alive(child.pid), false);
  // The grandchild got SIGTERM with its group; init may take a moment to reap it, so wait for that event.
  await new Promise<void>((done) => {
    const check = (): void => (alive(pid) ? void setImmediate(check) : done());
    check();
  });
  assert.equal(alive(pid), false);
});

test("a child ignoring SIGTERM is killed after the grace period", async (t) => {
  let ready: () => void;
  const trapped = new Promise<void>((done) => (ready = done));
  const child = spawnGroup("sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], {
    env: process.env,
    onStdout: (text) => {
      if (text.includes("ready")) ready();
    },
  });
  t.after(() => child.stop(10));
  await trapped;
  await child.stop(30);
  assert.equal(await child.exited, null);
  assert.equal(alive(child.pid), false);
});

test("exited reports the code; stopping an ended child resolves at once", async () => {
  const child = spawnGroup("sh", ["-c", "exit 4"], { env: process.env, onStdout: () => {} });
  assert.equal(await child.exited, 4);
  await child.stop();
  const missing = spawnGroup("hubmcp-no-such-program-x", [], { env: process.env, onStdout: () => {} });
  assert.equal(await missing.exited, 127);
  await missing.stop();
});

test("stdout and stderr can go apart, and the child runs in the folder given", async (t) => {
  let out = "";
  let err = "";
  const child = spawnGroup("sh", ["-c", "pwd; echo oops >&2"], {
    env: process.env,
    cwd: "/",
    onStdout: (text) => (out += text),
    onStderr: (text) => (err += text),
  });
  t.after(() => child.stop(10));
  assert.equal(await child.exited, 0);
  assert.equal(out, "/\n");
  assert.equal(err, "oops\n");
});

test("without an output handler the child shares this process's stdio, in a group of its own", async (t) => {
  const child = spawnGroup("sh", ["-c", "exit 3"], { env: process.env });
  t.after(() => child.stop(10));
  assert.equal(await child.exited, 3);
});
