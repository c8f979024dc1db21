// hub_gateway with `--store postgres://…`: the operator commands and the server on the
// database, the password from the environment, and every way a store can be wrong as one
// line with an exit status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../cli/hub_gateway.ts";
import { recordingIo as io } from "../helpers/cli-io.ts";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { PostgresRecordStore } from "../../lib/gateway/store/postgres-record-store.ts";
import { freePort, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";
import { POSTGRES_SKIP, postgresCluster } from "../helpers/postgres.ts";

const skip = POSTGRES_SKIP;

test("user and token commands work on --store, the password from HUBMCP_STORE_PASSWORD", { skip }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const env = { HUBMCP_STORE_PASSWORD: cluster.password };
  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", "--store", url], env, io("correct horse\n")), 0);
  const created = io();
  assert.equal(await run(["token", "create", "ada", "--store", url], env, created), 0);
  const id = /token (\S+) created/.exec(created.errors[0]!)![1]!;
  const listed = io();
  assert.equal(await run(["token", "list", "--store", url], env, listed), 0);
  assert.match(listed.lines[0]!, new RegExp(`^${id}  ada  `));
  // "store" in gateway.json serves the operator commands too.
  const config = join(tempDir(t), "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, store: url }));
  assert.equal(await run(["token", "revoke", id, "--config", config], env, io()), 0);
  assert.equal(await run(["token", "revoke", id, "--config", config], env, io()), 1);

  // pg's own PGPASSWORD serves as well.
  const saved = process.env.PGPASSWORD;
  process.env.PGPASSWORD = cluster.password;
  try {
    assert.equal(await run(["token", "list", "--store", url], {}, io()), 0);
  } finally {
    if (saved === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = saved;
  }

  const store = await PostgresRecordStore.open({ url, password: cluster.password });
  t.after(() => store.close());
  assert.deepEqual(await new StoreAccountDirectory(store).verifyPassword("ada", "correct horse"), { user: "ada", groups: ["staff"] });
  const rows = JSON.stringify(await store.list("accounts"));
  assert.ok(!rows.includes("correct horse"));
});

test("init --store puts the first user and token in the database and the URL, not its password, in gateway.json", { skip }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const env = { HUBMCP_STORE_PASSWORD: cluster.password };
  const dir = tempDir(t);
  const config = join(dir, "gateway.json");
  const made = io();
  assert.equal(await run(["init", "--store", url, "--config", config, "--user", "ada", "--port", "8089"], env, made), 0, made.errors.join("\n"));
  const written = JSON.parse(readFileSync(config, "utf8")) as { store?: string };
  assert.equal(written.store, url);
  assert.ok(!existsSync(join(dir, "hub-data")), "no data dir is made for a database store");
  assert.ok(
    made.lines.some((l) => l.includes("--config") && !l.includes("--data-dir")),
    made.lines.join("\n"),
  );
  const listed = io();
  assert.equal(await run(["token", "list", "--config", config], env, listed), 0);
  assert.match(listed.lines[0]!, /^\S+ {2}ada {2}/);
  const withPassword = new URL(url);
  withPassword.password = "inline-secret";
  const refused = io();
  assert.equal(await run(["init", "--store", withPassword.href, "--config", join(dir, "other.json"), "--port", "8089"], env, refused), 2);
  assert.match(refused.errors[0]!, /HUBMCP_STORE_PASSWORD/);
  assert.doesNotMatch(refused.errors.join("\n"), /inline-secret/);
});

test('the server runs on "store" from gateway.json until asked to stop', { skip }, async (t) => {
  const cluster = await postgresCluster();
  const config = join(tempDir(t), "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, store: await cluster.database() }));
  const out = io();
  assert.equal(await run(["--config", config, "--port", "0"], { HUBMCP_STORE_PASSWORD: cluster.password }, out), 0);
  assert.match(out.lines[0]!, /^hub_gateway ready at /);
});

test("store problems are one line each, never echoing the URL or password", { skip }, async (t) => {
  const cluster = await postgresCluster();
  const dir = tempDir(t);
  const secretUrl = (port: number) => `postgres://hubmcp:s3cret-pw@127.0.0.1:${port}/postgres`;
  const cases: Array<[string[], NodeJS.ProcessEnv, number, RegExp]> = [
    [["token", "list", "--store", "mysql://x/y"], {}, 2, /^hub_gateway: --store must be a postgres:\/\/user@host:port\/database URL$/],
    [["token", "list", "--store", cluster.url, "--data-dir", dir], {}, 2, /^hub_gateway: use --store or --data-dir, not both$/],
    [
      ["token", "list", "--store", secretUrl(await freePort())],
      {},
      1,
      /^hub_gateway: the store is unreachable; check that the database is up and its address$/,
    ],
    [
      ["token", "list", "--store", secretUrl(cluster.port)],
      {},
      1,
      /^hub_gateway: cannot open the store \(postgres error 28P01: login, database name or permissions\)$/,
    ],
    [["token", "list", "--store", cluster.url.replace(/postgres$/, "nosuchdb")], { HUBMCP_STORE_PASSWORD: cluster.password }, 1, /postgres error 3D000/],
  ];
  for (const [argv, env, status, pattern] of cases) {
    const out = io();
    assert.equal(await run(argv, env, out), status);
    assert.equal(out.errors.length, 1);
    assert.match(out.errors[0]!, pattern);
    assert.ok(!out.errors[0]!.includes("s3cret"));
  }
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: {}, store: "s3cret" }));
  const bad = io();
  assert.equal(await run(["--config", config], {}, bad), 2);
  assert.deepEqual(bad.errors, ["hub_gateway: config: store must be a postgres://user@host:port/database URL"]);
});

test("without the pg driver a postgres store is one clear line", async () => {
  // A resolve hook that makes `pg` missing, as on a host that never installed it.
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent('export async function resolve(s, c, next) { if (s === "pg") throw Object.assign(new Error("not found"), { code: "ERR_MODULE_NOT_FOUND" }); return next(s, c); }'));`,
  )}`;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", hook, join(ROOT, "cli", "hub_gateway.ts"), "token", "list", "--store", "postgres://u@127.0.0.1:1/db"],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const [code] = (await once(child, "close")) as [number];
  assert.equal(stderr, "hub_gateway: install pg to use a postgres store\n");
  assert.equal(code, 1);
});
