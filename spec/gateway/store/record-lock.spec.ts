// The record lock between processes on one data dir: an owner in another PID namespace (a
// container sharing our host name and the data-dir volume) is never taken for dead, and
// breaking stale locks never removes a live one, however many breakers meet.
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { processPlace, STALE_MS } from "../../../lib/gateway/store/record-lock.ts";
import { ROOT, tempDir } from "../../helpers/launcher-fixtures.ts";

const CHILD = fileURLToPath(new URL("update-in-child.ts", import.meta.url));
const LOCK = `.lock-${Buffer.from("c").toString("base64url")}`;
const NO_UNSHARE = (process.getuid?.() !== 0 || !existsSync("/usr/bin/unshare")) && "needs root and unshare(1) for a second PID namespace";

const increment = (store: FileRecordStore) => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }));

/** A pid that ran on this host and in this namespace, and has ended. */
async function endedPid(): Promise<number> {
  return Number((await promisify(execFile)(process.execPath, ["-e", "process.stdout.write(String(process.pid))"])).stdout);
}

test("a writer in another PID namespace keeps its locks: 2 x 1,500 updates of one record make exactly 3,000", {
  skip: NO_UNSHARE,
  timeout: 180_000,
}, async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const store = new FileRecordStore(dir);
  await store.put("counters", "c", { n: 0 });
  const child = spawn(
    "/usr/bin/unshare",
    ["--pid", "--fork", "--mount-proc", "--kill-child", process.execPath, "--import", "tsx", CHILD, dir, "1500", "wait"],
    { cwd: ROOT, env: { ...process.env, NODE_V8_COVERAGE: "" }, stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const ready = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const line = /^ready (.*)\n/.exec(out);
      if (line) resolve(line[1]!);
    });
    void exited.then((code) => reject(new Error(`the namespaced writer exited (${code}) before it was ready`)));
  });
  // The child really is elsewhere: same boot, another PID namespace (it is pid 1 there).
  const here = await processPlace();
  assert.notEqual(ready, here);
  assert.equal(ready.split(" ")[1], here.split(" ")[1]);

  child.stdin.end("go\n");
  await Promise.all(Array.from({ length: 1500 }, () => increment(store)));
  assert.equal(await exited, 0);
  assert.match(out, /done\n$/);
  assert.deepEqual(await store.get("counters", "c"), { n: 3000 });
  assert.deepEqual(readdirSync(join(dir, "counters")), [`${Buffer.from("c").toString("base64url")}.json`], "no lock, guard or temp file left");
});

test("a dead owner in our namespace is broken at once; one of an old form, another host or namespace once stale", async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const store = new FileRecordStore(dir);
  await store.put("counters", "c", { n: 0 });
  const lock = join(dir, "counters", LOCK);
  const place = await processPlace();
  writeFileSync(lock, `${hostname()} ${await endedPid()} 0123 ${place}`);
  assert.deepEqual(await increment(store), { n: 1 });
  for (const text of [
    `${hostname()} ${await endedPid()} 0123`,
    `other-host 1 0123 ${place}`,
    `${hostname()} ${await endedPid()} 0123 pid:[1] ${place.split(" ")[1]}`,
  ]) {
    writeFileSync(lock, text);
    const old = (Date.now() - STALE_MS - 1000) / 1000;
    utimesSync(lock, old, old);
    await increment(store);
  }
  assert.deepEqual(await store.get("counters", "c"), { n: 4 });
  assert.equal(readdirSync(join(dir, "counters")).length, 1);
});

test("where /proc cannot say which namespace we are in, no owner is judged dead", async (t) => {
  const fake = tempDir(t, "hubmcp-proc-");
  assert.equal(await processPlace(fake), "-");
  assert.match(await processPlace(), /^pid:\[\d+\] [0-9a-f-]{36}$/);
});

test("a lock path that cannot be read fails the write with its error rather than waiting", async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const store = new FileRecordStore(dir);
  await store.put("counters", "c", { n: 0 });
  const lock = join(dir, "counters", LOCK);
  symlinkSync(lock, lock);
  await assert.rejects(increment(store), (err: unknown) => (err as NodeJS.ErrnoException).code === "ELOOP");
});

test("a guard left by a breaker that died is broken too, and then the stale lock it guarded", async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const store = new FileRecordStore(dir);
  await store.put("counters", "c", { n: 0 });
  const lock = join(dir, "counters", LOCK);
  writeFileSync(lock, "other-host 1 0123");
  const old = (Date.now() - STALE_MS - 1000) / 1000;
  utimesSync(lock, old, old);
  const guard = `${lock}.break-${statSync(lock).ino}`;
  writeFileSync(guard, `${hostname()} ${await endedPid()} 4567 ${await processPlace()}`);
  assert.deepEqual(await increment(store), { n: 1 });
  assert.equal(readdirSync(join(dir, "counters")).length, 1, "lock and guard gone");
});

test("a lock whose breaker is at work when its owner releases it is left to that breaker", async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const store = new FileRecordStore(dir);
  const lock = join(dir, "counters", LOCK);
  let guard = "";
  await store.update<{ n: number }>("counters", "c", () => {
    // While this process holds the lock, another takes the guard of this lock instance.
    guard = `${lock}.break-${statSync(lock).ino}`;
    writeFileSync(guard, `other-host 1 89ab`);
    return { n: 1 };
  });
  assert.ok(existsSync(lock), "the owner did not remove a lock someone else is removing");
  const text = readFileSync(lock, "utf8");
  assert.match(text, new RegExp(`^${hostname()} ${process.pid} [0-9a-f]{16} pid:`));
  // The breaker went away; the lock is then freed by its age, guard first.
  const old = (Date.now() - STALE_MS - 1000) / 1000;
  utimesSync(lock, old, old);
  utimesSync(guard, old, old);
  assert.deepEqual(await increment(store), { n: 2 });
  assert.equal(readdirSync(join(dir, "counters")).length, 1);
});

test("many breakers meeting at locks of dead owners never let two writers in: 4 x 150 updates make exactly 600", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-lock-");
  const stores = Array.from({ length: 4 }, () => new FileRecordStore(dir));
  await stores[0]!.put("counters", "c", { n: 0 });
  const lock = join(dir, "counters", LOCK);
  const dead = `${hostname()} ${await endedPid()} dead ${await processPlace()}`;
  // After each of its updates a writer leaves the lock of a writer that died holding it (when
  // the lock is free): the next writers meet it, often several at once, and break it at once.
  let planted = 0;
  const plant = async () => {
    const file = await open(lock, "wx", 0o600).catch(() => undefined);
    if (!file) return;
    await file.writeFile(dead);
    await file.close();
    planted++;
  };
  await Promise.all(
    stores.map(async (store) => {
      for (let i = 0; i < 150; i++) {
        await increment(store);
        await plant();
      }
    }),
  );
  assert.ok(planted >= 150, `${planted} dead locks planted`);
  assert.deepEqual(await stores[0]!.get("counters", "c"), { n: 600 });
});
