// The hub_gateway command: operator commands on a data dir, config errors naming their
// key with exit status 2, and usage errors. Serving and SIGTERM are covered by the
// gateway scale-out spec, which runs two of these processes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../cli/hub_gateway.ts";
import { recordingIo as io } from "../helpers/cli-io.ts";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";
import { ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

test("user add reads the password from stdin and stores only a hash", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "cli", "hub_gateway.ts"), "user", "add", "ada", "--groups", "a,b", "--password-stdin", "--data-dir", dataDir],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  t.after(() => child.kill("SIGKILL"));
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stdin.end("correct horse\n");
  const [code] = (await once(child, "close")) as [number];
  assert.equal(code, 0);
  assert.match(stdout, /user ada added \(groups: a, b\)/);
  const accounts = new StoreAccountDirectory(new FileRecordStore(dataDir));
  assert.deepEqual(await accounts.verifyPassword("ada", "correct horse"), { user: "ada", groups: ["a", "b"] });
  assert.equal(await accounts.verifyPassword("ada", "wrong"), null);
  for (const file of allFiles(dataDir)) assert.ok(!readFileSync(file, "utf8").includes("correct horse"));
});

test("user add: clear errors for a taken or bad name and a missing --password-stdin", async (t) => {
  const dataDir = join(tempDir(t), "data");
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 0);
  const taken = io("pw");
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, taken), 1);
  assert.match(taken.errors[0]!, /already exists/);
  assert.equal(await run(["user", "add", "../x", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 2);
  assert.equal(await run(["user", "add", "bob", "--data-dir", dataDir], {}, io("pw")), 2);
  assert.equal(await run(["user", "add", "bob", "--password-stdin", "--data-dir", dataDir], {}, io("\n")), 2);
});

test("token create prints the token once; revoke by id ends it", async (t) => {
  const dataDir = join(tempDir(t), "data");
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--data-dir", dataDir], {}, io("pw")), 0);
  const created = io();
  assert.equal(await run(["token", "create", "ada", "--data-dir", dataDir], {}, created), 0);
  const token = created.lines[0]!;
  const m = /^hubmcp_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/.exec(token);
  assert.ok(m, "recognisable token");
  for (const file of allFiles(dataDir)) assert.ok(!readFileSync(file, "utf8").includes(token.slice(20)));
  const store = new FileRecordStore(dataDir);
  const tokens = new ApiTokens(store, new StoreAccountDirectory(store));
  assert.deepEqual(await tokens.verify(token), { user: "ada", groups: [], kind: "api-token" });
  const listed = io();
  assert.equal(await run(["token", "list", "--data-dir", dataDir], {}, listed), 0);
  assert.match(listed.lines[0]!, new RegExp(`^${m[1]}  ada  `));
  assert.equal(await run(["token", "revoke", m[1]!, "--data-dir", dataDir], {}, io()), 0);
  assert.equal(await tokens.verify(token), null);
  assert.equal(await run(["token", "revoke", m[1]!, "--data-dir", dataDir], {}, io()), 1);
  assert.equal(await run(["token", "create", "nobody", "--data-dir", dataDir], {}, io()), 1);
  assert.equal(await run(["token", "frobnicate", "--data-dir", dataDir], {}, io()), 2);
});

test("a bad config is one line naming the key, exit 2", async (t) => {
  const dir = tempDir(t);
  const cases: Array<[unknown, RegExp]> = [
    [{ tools: { demo: { revisions: {} } } }, /^hub_gateway: config: tools\.demo\.revisions\.default is required$/],
    [{ tools: { demo: { revisions: { default: { url: "ftp://x" } } } } }, /tools\.demo\.revisions\.default\.url must be an http\(s\) URL/],
    [{ tools: { demo: { revisions: { default: { command: [] } } } } }, /tools\.demo\.revisions\.default\.command must be a non-empty array/],
    [{ tools: { demo: { revisions: { default: { app: "a.ts", url: "http://x/" } } } } }, /tools\.demo\.revisions\.default must have exactly one of/],
    [{ tools: { demo: { groups: "staff", revisions: { default: { app: "a.ts" } } } } }, /tools\.demo\.groups must be an array/],
    [{ publicUrl: "not a url", tools: {} }, /publicUrl must be an http\(s\) URL/],
    [{ tools: {}, limits: { idleMinutes: -1 } }, /limits\.idleMinutes must be a positive number/],
    [{ tools: {}, extra: 1 }, /extra is not a known key/],
    [[], /\(top level\) must be a JSON object/],
    [
      { tools: {}, oauth: { identity: { issuer: "https://id.example", clientId: "hub", clientSecretFile: "/nonexistent/oidc-secret" } } },
      /^hub_gateway: config: oauth\.identity\.clientSecretFile names a file that cannot be read/,
    ],
  ];
  for (const [config, pattern] of cases) {
    const file = join(dir, "gateway.json");
    writeFileSync(file, JSON.stringify(config));
    const out = io();
    assert.equal(await run(["--config", file, "--data-dir", join(dir, "data")], {}, out), 2);
    assert.equal(out.errors.length, 1);
    assert.match(out.errors[0]!, pattern);
  }
  writeFileSync(join(dir, "broken.json"), "{");
  const broken = io();
  assert.equal(await run(["--config", join(dir, "broken.json")], {}, broken), 2);
  assert.match(broken.errors[0]!, /is not valid JSON/);
  assert.equal(await run(["--config", join(dir, "missing.json")], {}, io()), 2);
  assert.equal(await run([], {}, io()), 2);
  assert.equal(await run(["--config", "x", "--port", "99999"], {}, io()), 2);
  assert.equal(await run(["--nope"], {}, io()), 2);
  const help = io();
  assert.equal(await run(["--help"], {}, help), 0);
  assert.match(help.lines[0]!, /^usage: hub_gateway/);
  // user and token take the store from --data-dir, --store or the config's "store": the help says so.
  const text = help.lines.join("\n");
  assert.match(text, /hub_gateway user add NAME \[--groups a,b\] --password-stdin \[STORE\]/);
  assert.match(text, /hub_gateway token list \[STORE\]/);
  assert.match(text, /where STORE is --data-dir DIR, --store URL, or --config FILE/);
});

test("serves until asked to stop", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "gateway.json");
  writeFileSync(file, JSON.stringify({ tools: {} }));
  const out = io();
  assert.equal(await run(["--config", file, "--port", "0", "--data-dir", join(dir, "data")], {}, out), 0);
  assert.match(out.lines[0]!, /^hub_gateway ready at http:\/\/127\.0\.0\.1:\d+\/$/);
});

test("user list, passwd, groups and remove; token list names each token's owner", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const at = ["--data-dir", dataDir];
  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", ...at], {}, io("old pw\n")), 0);
  assert.equal(await run(["user", "add", "bob", "--password-stdin", ...at], {}, io("pw")), 0);
  const listed = io();
  assert.equal(await run(["user", "list", ...at], {}, listed), 0);
  assert.match(listed.lines.join("\n"), /^ada {2}staff {2}\d{4}-.*\nbob {2}- {2}\d{4}-/);
  assert.ok(!listed.lines.join("").includes("scrypt"), "no password hashes");

  const accounts = new StoreAccountDirectory(new FileRecordStore(dataDir));
  assert.equal(await run(["user", "passwd", "ada", "--password-stdin", ...at], {}, io("new pw\n")), 0);
  assert.equal(await accounts.verifyPassword("ada", "old pw"), null);
  assert.deepEqual(await accounts.verifyPassword("ada", "new pw"), { user: "ada", groups: ["staff"] });
  const regrouped = io();
  assert.equal(await run(["user", "groups", "ada", "mcp-users,admins", ...at], {}, regrouped), 0);
  assert.match(regrouped.lines[0]!, /ada groups: mcp-users, admins/);
  assert.deepEqual(await accounts.groupsOf("ada"), ["mcp-users", "admins"]);
  assert.equal(await run(["user", "groups", "ada", "", ...at], {}, io()), 0);
  assert.deepEqual(await accounts.groupsOf("ada"), []);

  const made = io();
  assert.equal(await run(["token", "create", "bob", ...at], {}, made), 0);
  assert.equal(await run(["token", "create", "ada", ...at], {}, io()), 0);
  const tokens = io();
  assert.equal(await run(["token", "list", ...at], {}, tokens), 0);
  assert.deepEqual(tokens.lines.map((l) => l.split("  ")[1]).sort(), ["ada", "bob"]);

  const removed = io();
  assert.equal(await run(["user", "remove", "bob", ...at], {}, removed), 0);
  assert.match(removed.lines[0]!, /^user bob removed \(1 API token, 0 OAuth sign-ins, 0 tool sessions ended\)$/);
  assert.equal(await accounts.groupsOf("bob"), null);
  const after = io();
  assert.equal(await run(["token", "list", ...at], {}, after), 0);
  assert.deepEqual(
    after.lines.map((l) => l.split("  ")[1]),
    ["ada"],
  );
  // Added again under the same name, the account inherits nothing of the old one.
  assert.equal(await run(["user", "add", "bob", "--password-stdin", ...at], {}, io("pw")), 0);
  const store = new FileRecordStore(dataDir);
  assert.equal(await new ApiTokens(store, new StoreAccountDirectory(store)).verify(made.lines[0]!), null);

  const missing = io();
  assert.equal(await run(["user", "remove", "carol", ...at], {}, missing), 1);
  assert.deepEqual(missing.errors, ["hub_gateway: no user carol"]);
  assert.equal(await run(["user", "passwd", "carol", "--password-stdin", ...at], {}, io("pw")), 1);
  assert.equal(await run(["user", "passwd", "ada", ...at], {}, io("pw")), 2);
  assert.equal(await run(["user", "passwd", "ada", "--password-stdin", ...at], {}, io("\n")), 2);
  assert.equal(await run(["user", "groups", "ada", ...at], {}, io()), 2);
  assert.equal(await run(["user", "groups", "ada", "bad group!", ...at], {}, io()), 2);
  assert.equal(await run(["user", "remove", ...at], {}, io()), 2);
  assert.equal(await run(["user", "remove", "ada", "extra", ...at], {}, io()), 2);
  assert.equal(await run(["user", "list", "ada", ...at], {}, io()), 2);
  assert.equal(await run(["user", "frobnicate", ...at], {}, io()), 2);
  assert.equal(await run(["token", "list", "x", ...at], {}, io()), 2);
});

test("an app revision whose file does not exist stops the start: exit 2, one line naming the file", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "gateway.json");
  writeFileSync(
    file,
    JSON.stringify({ tools: { demo: { revisions: { default: { app: join(ROOT, "fixtures", "demo", "app.ts") }, dev: { app: "no-such-app.ts" } } } } }),
  );
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "cli", "hub_gateway.ts"), "--config", file, "--port", "0", "--data-dir", join(dir, "data")],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_V8_COVERAGE: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  t.after(() => child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const [code] = (await once(child, "close")) as [number];
  assert.equal(code, 2);
  assert.equal(stdout, "", "never ready");
  assert.equal(stderr, `hub_gateway: config: tools.demo.revisions.dev.app names ${join(dir, "no-such-app.ts")}, which does not exist\n`);
  writeFileSync(file, JSON.stringify({ tools: { demo: { revisions: { default: { app: dir } } } } }));
  const folder = io();
  assert.equal(await run(["--config", file, "--data-dir", join(dir, "data")], {}, folder), 2);
  assert.deepEqual(folder.errors, [`hub_gateway: config: tools.demo.revisions.default.app names ${dir}, which is not a file`]);
});
