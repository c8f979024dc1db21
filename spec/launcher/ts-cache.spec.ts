// The compile cache: a child process compiles once per content, into a cache outside the
// app's folder; an unchanged app is served from the cache; a changed import is compiled
// again; package imports still resolve from the app's folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cacheDir, compileApp } from "../../lib/launcher/ts-cache.ts";
import { locateTsTools } from "../../lib/launcher/app-loader.ts";
import { BUILD_FORMAT } from "../../lib/launcher/ts-build.ts";
import { launcherEnv, ROOT, rpcAt, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

test("compiled once, then served from the cache until a source file changes", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const app = join(dir, "tool");
  mkdirSync(join(app, "node_modules", "units"), { recursive: true });
  writeFileSync(join(app, "node_modules", "units", "package.json"), JSON.stringify({ name: "units", type: "module", exports: "./main.js" }));
  writeFileSync(join(app, "node_modules", "units", "main.js"), "export const metre = 1;\n");
  writeFileSync(join(app, "dep.ts"), "export const two: number = 2;\n");
  writeFileSync(join(app, "data.mjs"), "export const three = 3;\n");
  writeFileSync(
    join(app, "app.ts"),
    `import { metre } from "units";\nimport { McpServer } from "hubmcp";\nimport { two } from "./dep.js";\nimport { three } from "./data.mjs";\nexport const value = metre + two + three;\nexport const server = McpServer;\n`,
  );
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, "cache") };
  const typescript = locateTsTools(join(app, "app.ts")).typescript!;

  const first = await compileApp(join(app, "app.ts"), typescript, env);
  assert.equal(first.kind, "ok", first.kind === "error" ? first.message : "");
  if (first.kind !== "ok") return;
  assert.equal(first.cached, false);
  const out = fileURLToPath(first.url);
  assert.ok(out.startsWith(join(dir, "cache", "hubmcp", "ts", "builds")), out);
  assert.deepEqual(readdirSync(app).sort(), ["app.ts", "data.mjs", "dep.ts", "node_modules"], "nothing written beside the app");
  const code = readFileSync(out, "utf8");
  assert.match(code, /from "file:\/\/.*\/tool\/node_modules\/units\/main\.js"/);
  assert.match(code, new RegExp(`from "${pathToFileURL(join(ROOT, "lib", "index.ts")).href}"`), "hubmcp resolves to the running copy");
  assert.match(code, /from "\.\/dep\.mjs"/);
  assert.match(code, /from "file:\/\/.*\/tool\/data\.mjs"/);
  const mod = (await import(first.url)) as { value: number };
  assert.equal(mod.value, 6);

  const second = await compileApp(join(app, "app.ts"), typescript, env);
  assert.deepEqual(second, { ...first, cached: true });

  writeFileSync(join(app, "dep.ts"), "export const two: number = 20;\n");
  const third = await compileApp(join(app, "app.ts"), typescript, env);
  assert.equal(third.kind === "ok" && third.cached, false);
  assert.notEqual(third.kind === "ok" && third.url, first.url);
  assert.equal(((await import(third.kind === "ok" ? third.url : "")) as { value: number }).value, 24);
  assert.deepEqual(readdirSync(join(dir, "cache", "hubmcp", "ts", "builds")).length, 1, "the outdated build is removed");
});

test("the cache folder falls back when the first choice is unusable", (t) => {
  const dir = tempDir(t);
  const blocked = join(dir, "blocked");
  writeFileSync(blocked, "a file, not a folder");
  chmodSync(blocked, 0o400);
  assert.equal(cacheDir({ XDG_CACHE_HOME: blocked }).startsWith(blocked), false);
  assert.equal(cacheDir({ XDG_CACHE_HOME: join(dir, "x") }), join(dir, "x", "hubmcp", "ts"));
});

/** A TypeScript app whose module run leaves no trace; returns its path. */
function tsApp(dir: string): string {
  const app = join(dir, "app.ts");
  writeFileSync(
    app,
    `import { McpServer } from ${JSON.stringify(join(ROOT, "lib", "index.ts"))};\nexport const server = new McpServer("honest");\nserver.tool(function hello() { return "honest"; });\n`,
  );
  return app;
}

/** The cache key start_mcp uses for `app`, as any account on the host can work it out. */
async function keyOf(t: { after(fn: () => unknown): void }, app: string): Promise<string> {
  const cache = tempDir(t);
  const first = await compileApp(app, locateTsTools(app).typescript!, { XDG_CACHE_HOME: cache });
  assert.equal(first.kind, "ok");
  return readdirSync(join(cache, "hubmcp", "ts", "entries"))[0]!.replace(/\.json$/, "");
}

/** What another account leaves in a cache folder: an index listing no sources, and a module of its own. */
function plant(ts: string, key: string, marker: string): void {
  mkdirSync(join(ts, "entries"), { recursive: true });
  mkdirSync(join(ts, "builds", "evil"), { recursive: true });
  writeFileSync(
    join(ts, "builds", "evil", "evil.mjs"),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "planted code ran");\nexport const server = null;\n`,
  );
  writeFileSync(
    join(ts, "entries", `${key}.json`),
    JSON.stringify({ format: BUILD_FORMAT, build: "evil", entryOut: "evil.mjs", files: {}, outputs: { "evil.mjs": "x" }, unexpressible: [] }),
  );
}

test("start_mcp never imports a module another account planted in the temp cache folder", {
  timeout: 120_000,
  skip: process.getuid?.() !== 0 && "needs root to act as another account",
}, async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const app = tsApp(dir);
  const key = await keyOf(t, app);
  const tmp = join(dir, "tmp");
  mkdirSync(tmp, { mode: 0o1777 });
  chmodSync(tmp, 0o1777);
  // The attacker's folder, where start_mcp's last fallback looks: theirs, open to all.
  const ts = join(tmp, `hubmcp-${process.getuid!()}`, "ts");
  const marker = join(dir, "pwned");
  plant(ts, key, marker);
  for (const d of [dirname(ts), ts, join(ts, "entries"), join(ts, "builds"), join(ts, "builds", "evil")]) {
    chownSync(d, 65534, 65534);
    chmodSync(d, 0o777);
  }
  // No usable cache home: HOME is a file, XDG_CACHE_HOME unset.
  const env = launcherEnv(undefined, { HOME: "/dev/null", TMPDIR: tmp });
  delete env.XDG_CACHE_HOME;
  const cli = spawnCli(t, ["--app", app, "--host", "127.0.0.1", "--port", "0"], env);
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)/);
  const call = await rpcAt(url!, "tools/call", { name: "hello", arguments: {} });
  assert.deepEqual(call.result.content, [{ type: "text", text: "honest" }]);
  assert.equal(existsSync(marker), false, "the planted module never ran");
});

test("a private cache whose index lists no sources, or whose build changed, is compiled again", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const app = tsApp(dir);
  const cache = tempDir(t);
  const env = { XDG_CACHE_HOME: cache };
  const typescript = locateTsTools(app).typescript!;
  const first = await compileApp(app, typescript, env);
  assert.equal(first.kind, "ok");
  if (first.kind !== "ok") return;
  const ts = join(cache, "hubmcp", "ts");
  const key = readdirSync(join(ts, "entries"))[0]!.replace(/\.json$/, "");
  // A build edited in place no longer matches the hash its index recorded.
  writeFileSync(fileURLToPath(first.url), "export const server = null; // edited\n");
  const again = await compileApp(app, typescript, env);
  assert.equal(again.kind === "ok" && again.cached, false);
  assert.match(readFileSync(fileURLToPath(first.url), "utf8"), /honest/);
  // An index that lists no sources is never fresh.
  const marker = join(dir, "pwned");
  plant(ts, key, marker);
  const third = await compileApp(app, typescript, env);
  assert.equal(third.kind === "ok" && third.cached, false);
  assert.equal(third.kind === "ok" && third.url, first.url);
  assert.equal(existsSync(marker), false);
});

test("a cache folder open to others, or owned by another account, is not used", { skip: process.getuid?.() !== 0 && "needs root to chown" }, (t) => {
  const dir = tempDir(t);
  const open = join(dir, "open");
  mkdirSync(join(open, "hubmcp", "ts"), { recursive: true });
  chmodSync(join(open, "hubmcp"), 0o777);
  assert.equal(cacheDir({ XDG_CACHE_HOME: open }).startsWith(open), false);
  const theirs = join(dir, "theirs");
  mkdirSync(join(theirs, "hubmcp", "ts"), { recursive: true, mode: 0o700 });
  chownSync(join(theirs, "hubmcp", "ts"), 65534, 65534);
  assert.equal(cacheDir({ XDG_CACHE_HOME: theirs }).startsWith(theirs), false);
  // A base folder where others may rename our folder away and put theirs in its place.
  const shared = join(dir, "shared");
  mkdirSync(shared, { mode: 0o777 });
  chmodSync(shared, 0o777);
  assert.equal(cacheDir({ XDG_CACHE_HOME: shared, HOME: "/dev/null", TMPDIR: join(dir, "tmp2") }).startsWith(shared), false);
  chmodSync(shared, 0o1777);
  assert.equal(cacheDir({ XDG_CACHE_HOME: shared }), join(shared, "hubmcp", "ts"), "sticky, like /tmp: fine");
  // With every candidate refused, a fresh private folder for this run.
  const tmp = join(dir, "tmp");
  mkdirSync(join(tmp, `hubmcp-${process.getuid!()}`), { recursive: true, mode: 0o777 });
  chownSync(join(tmp, `hubmcp-${process.getuid!()}`), 65534, 65534);
  const fresh = cacheDir({ XDG_CACHE_HOME: theirs, HOME: "/dev/null", TMPDIR: tmp });
  assert.ok(fresh.startsWith(join(tmp, `hubmcp-${process.getuid!()}-`)), fresh);
  assert.equal(statSync(fresh).mode & 0o777, 0o700);
});

test("an app importing another copy of hubmcp's sources is served by the running copy: one process never holds two hubmcps", {
  timeout: 120_000,
}, async (t) => {
  const dir = tempDir(t);
  // A second hubmcp checkout whose lib/index.ts would fail loudly if it were ever compiled and run.
  mkdirSync(join(dir, "other", "lib"), { recursive: true });
  writeFileSync(join(dir, "other", "package.json"), JSON.stringify({ name: "hubmcp", type: "module" }));
  writeFileSync(join(dir, "other", "lib", "index.ts"), `throw new Error("the other copy was loaded");\n`);
  // A package of another name is compiled as the app's own code.
  mkdirSync(join(dir, "mine", "lib"), { recursive: true });
  writeFileSync(join(dir, "mine", "package.json"), JSON.stringify({ name: "mine", type: "module" }));
  writeFileSync(join(dir, "mine", "lib", "index.ts"), "export const mine: number = 7;\n");
  // A pipe where a package.json would be (another account can leave one in a shared folder) is
  // not read: a read would wait on it forever.
  mkdirSync(join(dir, "sub"));
  assert.equal(spawnSync("mkfifo", [join(dir, "sub", "package.json")]).status, 0);
  writeFileSync(join(dir, "sub", "local.ts"), "export const local: number = 1;\n");
  const app = join(dir, "app.ts");
  writeFileSync(
    app,
    `import { McpServer } from "./other/lib/index.ts";\nimport { mine } from "./mine/lib/index.ts";\nimport { local } from "./sub/local.ts";\nexport const value = mine + local;\nexport const server = McpServer;\n`,
  );
  const built = await compileApp(app, locateTsTools(app).typescript!, { ...process.env, XDG_CACHE_HOME: join(dir, "cache") });
  assert.equal(built.kind, "ok", built.kind === "error" ? built.message : "");
  if (built.kind !== "ok") return;
  const code = readFileSync(fileURLToPath(built.url), "utf8");
  assert.match(code, new RegExp(`from "${pathToFileURL(join(ROOT, "lib", "index.ts")).href}"`));
  const mod = (await import(built.url)) as { value: number; server: unknown };
  assert.equal(mod.value, 8);
  assert.equal(typeof mod.server, "function");
});
