// The data dir as found on disk: one that another account owns, can enter, or has swapped
// for a symbolic link is refused with one line saying how to fix it (exit 2 from the CLI),
// before anything is read from it or written to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, type CliIo } from "../../../cli/hub_gateway.ts";
import { checkDataDir, DataDirError, FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";

function io(): CliIo & { errors: string[] } {
  const errors: string[] = [];
  return { errors, out: () => {}, err: (l) => void errors.push(l), readStdin: async () => "pw", stopRequested: Promise.resolve("SIGTERM") };
}

async function refused(dir: string, pattern: RegExp): Promise<void> {
  await assert.rejects(checkDataDir(dir), (err: unknown) => err instanceof DataDirError && err.code === "HUBMCP_UNSAFE_DATA_DIR" && pattern.test(err.message));
  const cli = io();
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dir], {}, cli), 2);
  assert.equal(cli.errors.length, 1, "one line");
  assert.match(cli.errors[0]!, pattern);
}

test("a data dir open to other accounts is refused with the chmod that fixes it", async (t) => {
  const dir = join(tempDir(t), "data");
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o755);
  await refused(dir, /open to other accounts \(mode 755\); run: chmod 700 /);
  assert.deepEqual(readdirSync(dir), [], "nothing written to it");
  chmodSync(dir, 0o770);
  await refused(dir, /mode 770/);
  chmodSync(dir, 0o700);
  await checkDataDir(dir);
});

test("a data dir another account owns is refused", { skip: process.getuid?.() !== 0 && "needs root to chown" }, async (t) => {
  const dir = join(tempDir(t), "data");
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, 65534, 65534);
  await refused(dir, /belongs to another account \(uid 65534\); run: chown -R /);
});

test("a data dir that is a symbolic link, or not a folder, is refused", async (t) => {
  const base = tempDir(t);
  const real = join(base, "real");
  mkdirSync(real, { mode: 0o700 });
  symlinkSync(real, join(base, "link"));
  await refused(join(base, "link"), /is a symbolic link; point --data-dir at the real folder/);
  writeFileSync(join(base, "file"), "");
  await refused(join(base, "file"), /is not a folder/);
});

test("a missing data dir is created private on first write; a private one opens", async (t) => {
  const dir = join(tempDir(t), "new");
  const store = await FileRecordStore.open(dir);
  await store.put("c", "x", { a: 1 });
  await checkDataDir(dir);
  assert.deepEqual(await (await FileRecordStore.open(dir)).get("c", "x"), { a: 1 });
  const cli = io();
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dir], {}, cli), 0, cli.errors.join("\n"));
});
