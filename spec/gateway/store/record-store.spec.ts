import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { recordStoreContract } from "../record-store-contract.ts";

function tempDir(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

recordStoreContract("MemoryRecordStore", () => new MemoryRecordStore());
recordStoreContract("FileRecordStore", (t) => new FileRecordStore(tempDir(t)), {
  pair: (t) => {
    const dir = tempDir(t);
    return [new FileRecordStore(dir), new FileRecordStore(dir)];
  },
});

test("two file stores on one data dir see each other's records and share secrets", async (t) => {
  const dir = tempDir(t);
  const a = new FileRecordStore(dir);
  const b = new FileRecordStore(dir);
  await a.put("clients", "c1", { name: "x" });
  assert.deepEqual(await b.get("clients", "c1"), { name: "x" });
  assert.ok((await a.secret("k")).equals(await b.secret("k")));
  assert.equal(await b.create("clients", "c1", {}), false);
});

test("file records are private, leave no temp files, and ids never become paths", async (t) => {
  const dir = tempDir(t);
  const store = new FileRecordStore(dir);
  await store.put("tokens", "../../etc/passwd", { h: 1 });
  await store.create("tokens", "t2", { h: 2 });
  const names = readdirSync(join(dir, "tokens"));
  assert.equal(names.length, 2);
  assert.ok(names.every((n) => /^[A-Za-z0-9_-]+\.json$/.test(n)));
  assert.equal(statSync(join(dir, "tokens", names[0]!)).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, "tokens")).mode & 0o777, 0o700);
  // Stray files (a crashed writer's temp file, foreign names) are not records.
  writeFileSync(join(dir, "tokens", ".tmp-dead"), "{");
  writeFileSync(join(dir, "tokens", "not base64!.json"), "{}");
  assert.equal((await store.list("tokens")).length, 2);
});

test("updates from three processes on one data dir lose no change", async (t) => {
  const dir = tempDir(t);
  const script = fileURLToPath(new URL("update-in-child.ts", import.meta.url));
  const child = () => promisify(execFile)(process.execPath, ["--import", "tsx", script, dir, "30"], { timeout: 60_000 });
  const store = new FileRecordStore(dir);
  const here = Promise.all(Array.from({ length: 30 }, () => store.update<{ n: number }>("counters", "c", (current) => ({ n: (current?.n ?? 0) + 1 }))));
  const [a, b] = await Promise.all([child(), child(), here]);
  assert.equal(a.stdout + b.stdout, "done\ndone\n");
  assert.deepEqual(await store.get("counters", "c"), { n: 90 });
  assert.deepEqual(readdirSync(join(dir, "counters")), [`${Buffer.from("c").toString("base64url")}.json`], "no lock or temp file left");
});
