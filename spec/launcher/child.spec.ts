import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { spawnGroup, waitForPort } from "../../lib/launcher/child.ts";
import { alive, freePort } from "../helpers/launcher-fixtures.ts";

test("stop() ends the whole process group, including grandchildren, and is safe twice", async (t) => {
  let output = "";
  let sawPid: (pid: number) => void;
  const grandchild = new Promise<number>((resolve) => (sawPid = resolve));
  const child = spawnGroup("sh", ["-c", "sleep 60 & echo $!; wait"], process.env, (text) => {
    output += text;
    const m = /^(\d+)$/m.exec(output);
    if (m) sawPid(Number(m[1]));
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
  const child = spawnGroup("sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], process.env, (text) => {
    if (text.includes("ready")) ready();
  });
  t.after(() => child.stop(10));
  await trapped;
  await child.stop(30);
  assert.equal(await child.exited, null);
  assert.equal(alive(child.pid), false);
});

test("exited reports the code; stopping an ended child resolves at once", async () => {
  const child = spawnGroup("sh", ["-c", "exit 4"], process.env, () => {});
  assert.equal(await child.exited, 4);
  await child.stop();
  const missing = spawnGroup("hubmcp-no-such-program-x", [], process.env, () => {});
  assert.equal(await missing.exited, 127);
  await missing.stop();
});

test("waitForPort sees a listener, and gives up when the process ends or time runs out", async (t) => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => server.close(() => done())));
  const port = (server.address() as { port: number }).port;
  assert.equal(await waitForPort(port, new Promise(() => {})), true);
  const closed = await freePort();
  assert.equal(await waitForPort(closed, Promise.resolve()), false);
  assert.equal(await waitForPort(closed, new Promise(() => {}), 20, 5), false);
});
