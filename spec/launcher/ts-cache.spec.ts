// The compile cache: a child process compiles once per content, into a cache outside the
// app's folder; an unchanged app is served from the cache; a changed import is compiled
// again; package imports still resolve from the app's folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cacheDir, compileApp } from "../../lib/launcher/ts-cache.ts";
import { locateTsTools } from "../../lib/launcher/app-loader.ts";
import { ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

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
