// The data dir on a real tmpfs that is full: a write the store cannot make is StoreFullError,
// a request that needs it answers 503 with Retry-After (OAuth: temporarily_unavailable), the
// CLI prints one line, no temp, lock or guard file outlives the failed write, and once space
// is freed the same gateway writes again.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { run } from "../../cli/hub_gateway.ts";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { gatewayAuthorizationServer } from "../../lib/gateway/identity/oauth-for-gateway.ts";
import { startGateway } from "../../lib/gateway/server.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";
import { StoreFullError } from "../../lib/gateway/contracts/store-errors.ts";
import { recordingIo } from "../helpers/cli-io.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";
import { hubCommand } from "./cli/hub-process.ts";
import { fake, post, ROOT } from "./helpers.ts";

const NOT_ROOT = process.getuid?.() !== 0 && "needs root to mount a tmpfs";

/**
 * A small tmpfs of its own, unmounted when the test ends; `data` inside it is a private data dir.
 * `beforeUnmount` runs its callbacks (last added first) ahead of the unmount: node:test runs
 * `after` hooks in the order they were added, so a gateway closed by a later hook could still
 * hold a file on the disk when it is unmounted ("target is busy").
 */
function smallDisk(t: TestContext, options: string): { mount: string; data: string; beforeUnmount: (close: () => unknown) => void } {
  const mount = mkdtempSync(join(tmpdir(), "hubmcp-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `${options},mode=0700`, "tmpfs", mount]);
  const closers: Array<() => unknown> = [];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
    execFileSync("umount", [mount]);
    rmdirSync(mount);
  });
  const data = join(mount, "data");
  mkdirSync(data, { mode: 0o700 });
  return { mount, data, beforeUnmount: (close) => closers.push(close) };
}

/** Writes a filler file until the disk refuses another byte. */
function fill(mount: string): string {
  const path = join(mount, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, "ENOSPC");
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Every file under `dir` that a failed write could leave: temp files, locks and their guards. */
function leftovers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => /(^|\/)\.(tmp|lock)-/.test(name));
}

const full = (err: unknown) => err instanceof StoreFullError && err.code === "HUBMCP_STORE_FULL";

test("a full disk: every store write fails with StoreFullError and leaves no file behind; reads and deletes go on", { skip: NOT_ROOT }, async (t) => {
  const { mount, data } = smallDisk(t, "size=256k");
  const store = new FileRecordStore(data);
  await store.put("c", "a", { v: 1 });
  await store.put("c", "gone", { v: 2 });
  const filler = fill(mount);

  await assert.rejects(store.put("c", "b", { v: "x".repeat(100) }), full);
  await assert.rejects(store.create("c", "b", { v: 2 }), full);
  await assert.rejects(
    store.update("c", "a", () => ({ v: 3 })),
    full,
  );
  await assert.rejects(
    store.update("d", "new", () => ({ v: 3 })),
    full,
  );
  await assert.rejects(store.secret("k"), full);
  assert.deepEqual(await store.get("c", "a"), { v: 1 }, "the record as it was");
  // A delete needs no space (its lock stays empty): it frees some.
  await store.delete("c", "gone");
  assert.deepEqual(
    (await store.list("c")).map((r) => r.id),
    ["a"],
  );
  assert.deepEqual(leftovers(data), []);

  rmSync(filler);
  await store.put("c", "b", { v: 4 });
  assert.deepEqual(await store.get("c", "b"), { v: 4 });
});

test("a disk out of inodes: writes fail with StoreFullError; a lock whose guard cannot be made is still released", { skip: NOT_ROOT }, async (t) => {
  const { mount, data } = smallDisk(t, "size=1m,nr_inodes=40");
  const store = new FileRecordStore(data);
  await store.put("c", "a", { v: 1 });
  const spare = join(mount, "spare");
  mkdirSync(spare);
  let made = 0;
  try {
    for (;;) writeFileSync(join(spare, String(made++)), "");
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, "ENOSPC");
  }
  await assert.rejects(
    store.update("c", "a", () => ({ v: 2 })),
    full,
  );
  await assert.rejects(store.put("c", "b", { v: 2 }), full);
  // One inode free: the lock takes it, so its guard cannot be made when it is released.
  rmSync(join(spare, "0"));
  assert.deepEqual(await store.update("c", "a", () => undefined), { v: 1 });
  assert.deepEqual(leftovers(data), []);
  assert.equal(statSync(join(data, "c")).isDirectory(), true);
});

test("a data dir on a disk remounted read-only: writes fail with StoreFullError, reads go on", { skip: NOT_ROOT }, async (t) => {
  const { mount, data } = smallDisk(t, "size=256k");
  const store = new FileRecordStore(data);
  await store.put("c", "a", { v: 1 });
  execFileSync("mount", ["-o", "remount,ro", mount]);
  await assert.rejects(store.put("c", "b", { v: 2 }), full);
  await assert.rejects(
    store.update("c", "a", () => ({ v: 2 })),
    full,
  );
  await assert.rejects(store.delete("c", "a"), full);
  assert.deepEqual(await store.get("c", "a"), { v: 1 });
});

test("a gateway on a full disk: 503 with Retry-After for OAuth registration and tool sessions, one line from the CLI", {
  skip: NOT_ROOT,
  timeout: 60_000,
}, async (t) => {
  const { mount, data, beforeUnmount } = smallDisk(t, "size=1m");
  const store = await FileRecordStore.open(data);
  const accounts = new StoreAccountDirectory(store);
  const tokens = new ApiTokens(store, accounts);
  await accounts.add("alice", "pw", []);
  const token = (await tokens.create("alice"))!.token;
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } } }, ROOT);
  let publicUrl = "http://127.0.0.1";
  const authorizationServer = gatewayAuthorizationServer({ config, settings: config.oauth, store, accounts, apiTokens: tokens, publicUrl: () => publicUrl });
  const gw = await startGateway({ config, store, authorizationServer });
  publicUrl = gw.publicUrl;
  beforeUnmount(() => gw.close());
  const register = () =>
    fetch(`${gw.url}authorize/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "spec", redirect_uris: ["http://127.0.0.1:5555/cb"], token_endpoint_auth_method: "none" }),
    });
  const filler = fill(mount);

  const registration = await register();
  assert.equal(registration.status, 503);
  assert.equal(registration.headers.get("retry-after"), "5");
  const oauthError = (await registration.json()) as { error: string; error_description: string };
  assert.equal(oauthError.error, "temporarily_unavailable");
  assert.doesNotMatch(oauthError.error_description, /ENOSPC|\//);

  // The first call starts alice's tool session, whose record must be written.
  const call = await post(`${gw.url}api/mcp/fake/tools/add`, token, '{"a":1}');
  assert.equal(call.status, 503);
  assert.equal(call.headers.get("retry-after"), "5");
  assert.equal(((await call.json()) as { error: string }).error, "store_full");

  const cli = recordingIo("pw-bob");
  assert.equal(await run(["user", "add", "bob", "--password-stdin", "--data-dir", data], {}, cli), 1);
  assert.deepEqual(cli.errors, ["hub_gateway: the data dir cannot be written: its disk is full, over quota or read-only"]);
  const init = recordingIo();
  const config2 = join(tempDir(t), "gateway.json");
  assert.equal(await run(["init", "--data-dir", join(mount, "fresh"), "--config", config2, "--port", "8123"], {}, init), 1);
  assert.deepEqual(init.errors, ["hub_gateway: the data dir cannot be written: its disk is full, over quota or read-only"]);
  // The command as an operator runs it: one line on stderr, no stack trace.
  const created = await hubCommand(["token", "create", "alice", "--data-dir", data]);
  assert.equal(created.code, 1);
  assert.equal(created.stderr, "hub_gateway: the data dir cannot be written: its disk is full, over quota or read-only\n");
  assert.deepEqual(leftovers(data), [], "no temp, lock or guard file outlives a failed write");

  rmSync(filler);
  assert.equal((await register()).status, 201);
  assert.equal((await post(`${gw.url}api/mcp/fake/tools/add`, token, '{"a":1}')).status, 200);
});

test("a record the data dir cannot read (EISDIR standing in for EIO) is 503 with Retry-After, never a 401 that makes clients drop their token", async (t) => {
  const data = tempDir(t);
  const store = await FileRecordStore.open(data);
  const accounts = new StoreAccountDirectory(store);
  const tokens = new ApiTokens(store, accounts);
  await accounts.add("alice", "pw", []);
  const token = (await tokens.create("alice"))!.token;
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } }, limits: { lookupCacheSeconds: 0 } }, ROOT);
  const gw = await startGateway({ config, store });
  t.after(() => gw.close());
  const folder = join(data, "api-tokens");
  const [file] = readdirSync(folder);
  rmSync(join(folder, file!));
  mkdirSync(join(folder, file!));
  const call = await post(`${gw.url}api/mcp/fake/tools/add`, token, '{"a":1}');
  assert.equal(call.status, 503);
  assert.equal(call.headers.get("retry-after"), "5");
  await call.text();
  await assert.rejects(
    store.get("api-tokens", "x".repeat(10)).then(() => store.list("api-tokens")),
    { code: "HUBMCP_STORE_UNAVAILABLE" },
  );
});
