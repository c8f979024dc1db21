import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chooseTsStrategy, compilerPath, isMcpServer, loadApp, locateTsTools, pickServer, prepareTypeScript, TSX_NOTE } from "../../lib/launcher/app-loader.ts";
import { McpServer } from "../../lib/index.ts";
import { LIB_INDEX, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

test("a server is recognised by its brand, not by instanceof", () => {
  assert.equal(isMcpServer(new McpServer("x")), true);
  assert.equal(isMcpServer({ [Symbol.for("hubmcp.server")]: true, listen() {} }), true);
  assert.equal(isMcpServer({ listen() {} }), false);
  assert.equal(isMcpServer(null), false);
  assert.equal(isMcpServer("server"), false);
});

test("pickServer takes `server`, the default export, or CommonJS module.exports.server", () => {
  const s = new McpServer("x");
  assert.equal(pickServer({ server: s }, "a.mjs").kind, "ok");
  assert.equal(pickServer({ default: s }, "a.mjs").kind, "ok");
  assert.equal(pickServer({ default: { server: s } }, "a.cjs").kind, "ok");
  const messages = [
    pickServer({ server: 42 }, "a.mjs"),
    pickServer({ server: null }, "a.mjs"),
    pickServer({ server: { listen() {} } }, "a.mjs"),
    pickServer({ server: Object.create(null) as object }, "a.mjs"),
    pickServer({ app: 1, other: 2, __esModule: true }, "a.mjs"),
    pickServer({}, "a.mjs"),
  ].map((r) => (r.kind === "error" ? r.message : ""));
  assert.deepEqual(messages, [
    "a.mjs does not export a McpServer as `server` (named or default); found `server` is a number",
    "a.mjs does not export a McpServer as `server` (named or default); found `server` is null",
    "a.mjs does not export a McpServer as `server` (named or default); found `server` is an object (Object)",
    "a.mjs does not export a McpServer as `server` (named or default); found `server` is an object (no prototype)",
    "a.mjs does not export a McpServer as `server` (named or default); found exports: app, other",
    "a.mjs does not export a McpServer as `server` (named or default); found no exports",
  ]);
});

test("TypeScript strategy: the compiler (types and comments kept), then Node's own stripping, then tsx, then a message", async (t) => {
  const both = { typescript: "file:///ts.js", tsx: "file:///tsx.mjs" };
  assert.deepEqual(chooseTsStrategy({ typescript: "strip" }, both), { kind: "compile", typescript: "file:///ts.js" });
  assert.deepEqual(chooseTsStrategy({}, both), { kind: "compile", typescript: "file:///ts.js" });
  assert.deepEqual(chooseTsStrategy({ typescript: "strip" }, { typescript: null, tsx: "file:///tsx.mjs" }), { kind: "native" });
  assert.deepEqual(chooseTsStrategy({ typescript: false }, { typescript: null, tsx: "file:///tsx.mjs" }), { kind: "tsx", tsx: "file:///tsx.mjs" });
  assert.deepEqual(chooseTsStrategy({}, { typescript: null, tsx: null }), { kind: "none" });
  assert.deepEqual(await prepareTypeScript({ kind: "native" }, "a.ts"), {});
  assert.deepEqual(await prepareTypeScript({ kind: "compile", typescript: "file:///ts.js" }, "a.ts"), {});
  const none = await prepareTypeScript({ kind: "none" }, "a.ts");
  assert.match("error" in none ? none.error : "", /a\.ts is TypeScript.*install `typescript` or `tsx`.*compile it.*\.mjs/);
  const found = locateTsTools(join(tempDir(t), "app.ts"));
  assert.match(found.typescript ?? "", /^file:.*typescript/);
  assert.match(found.tsx ?? "", /^file:.*tsx.*api.*\.mjs$/);
  assert.match(TSX_NOTE, /doc/);
  // With no compiler installed, an installed hubmcp's own copy (dist/vendor, issue 34.5); none in a clone that never built.
  const vendored = join(tempDir(t), "typescript.js");
  assert.equal(compilerPath(null, vendored), null);
  writeFileSync(vendored, "");
  assert.equal(compilerPath(null, vendored), vendored);
  assert.equal(compilerPath("/installed/typescript.js", vendored), "/installed/typescript.js");
});

test("loadApp loads .mjs, .js, .cjs apps with relative imports", async (t) => {
  const dir = tempDir(t);
  writeApp(dir, "app.mjs");
  writeFileSync(join(dir, "helper.mjs"), `export const name = "from-helper";\n`);
  writeFileSync(
    join(dir, "rel.mjs"),
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};\nimport { name } from "./helper.mjs";\nexport default new McpServer(name);\n`,
  );
  mkdirSync(join(dir, "esm"));
  writeFileSync(join(dir, "esm", "package.json"), `{"type":"module"}`);
  writeApp(join(dir, "esm"), "app.js");
  writeFileSync(join(dir, "app.cjs"), `exports.server = { [Symbol.for("hubmcp.server")]: true, listen() {} };\n`);
  for (const file of ["app.mjs", "rel.mjs", "esm/app.js", "app.cjs"]) {
    const loaded = await loadApp(join(dir, file));
    assert.equal(loaded.kind, "ok", file);
    assert.deepEqual(loaded.kind === "ok" && loaded.notes, [], file);
  }
});

test("loadApp errors: missing file, unsupported type, no server, a throwing app (with its stack), TypeScript without a loader", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "empty.mjs"), "export const answer = 42;\n");
  writeFileSync(join(dir, "throws.mjs"), "function explode() { throw new Error('boom at load'); }\nexplode();\n");
  writeFileSync(join(dir, "throws-value.mjs"), "throw 'a string';\n");
  writeFileSync(join(dir, "app.py"), "print(1)\n");
  writeFileSync(join(dir, "app.ts"), "export const x: number = 1;\n");
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, "cache") };
  const message = async (file: string) => {
    const r = await loadApp(join(dir, file), { env });
    assert.equal(r.kind, "error", file);
    return r.kind === "error" ? r.message : "";
  };
  assert.equal(await message("nope.mjs"), `app file not found: ${join(dir, "nope.mjs")}`);
  assert.match(await message("app.py"), /unsupported app file type/);
  assert.match(await message("empty.mjs"), /empty\.mjs does not export a McpServer .* found exports: answer/);
  const thrown = await message("throws.mjs");
  assert.match(thrown, /throws\.mjs:1:28 Error: boom at load\n\s+at explode/);
  assert.match(await message("throws-value.mjs"), /throws-value\.mjs failed to load: a string/);
  assert.match(await message("app.ts"), /app\.ts does not export a McpServer .* found exports: x/);
  writeFileSync(join(dir, "broken.ts"), "export const x: number = (1;\n");
  assert.match(await message("broken.ts"), /broken\.ts failed to compile:\nbroken\.ts:1:\d+ '\)' expected/);
});
