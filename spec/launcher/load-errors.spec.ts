// Load errors point at the user's file, line and column: a TypeScript syntax error at its
// place in the source as written (not the internally edited copy), a missing import at the
// import in the user's file (not the compile cache), an error thrown at load at its line in
// the .ts file (source maps), and an ES module syntax error at file:line:col without Node's
// internal frames.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeLoadError } from "../../lib/launcher/load-errors.ts";
import { launcherEnv, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

async function loadFails(t: { after(fn: () => unknown): void }, dir: string, name: string, source: string): Promise<string> {
  writeFileSync(join(dir, name), source);
  const cli = spawnCli(t, ["--app", join(dir, name), "--port", "0"], launcherEnv(join(dir, "cache")));
  assert.equal((await cli.exit).code, 1);
  const err = cli.stderr();
  assert.doesNotMatch(err, /node:internal|hubmcp\/ts\/builds|\/cache\//, "neither Node's frames nor the compile cache");
  return err;
}

const HEAD = `import { McpServer } from "hubmcp";\nexport const server = new McpServer("x");\n`;

test("a .ts syntax error is reported where it is in the file as written", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  // The typed function on line 6 gets a tag inserted before it in the compiled copy.
  const line6 = `server.tool(function add(a: number, b: number) { return a + b; }) );`;
  const err = await loadFails(t, dir, "syntax.ts", `${HEAD}\n\n// line 5\n${line6}\n`);
  assert.equal(err, `start_mcp: ${join(dir, "syntax.ts")} failed to compile:\nsyntax.ts:6:${line6.indexOf(" );") + 2} ';' expected.\n`);
});

test("a missing import names the user's .ts file and the import's line, not the compile cache", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const err = await loadFails(
    t,
    dir,
    "imp.ts",
    `import { McpServer } from "hubmcp";\nimport { helper } from "./missing.js";\nexport const server = new McpServer("x");\nserver.tool(function add(a: number) { return helper(a); });\n`,
  );
  assert.equal(err, `start_mcp: ${join(dir, "imp.ts")}:2:24 Error: Cannot find module '${join(dir, "missing.js")}' imported from ${join(dir, "imp.ts")}\n`);
});

test("an error thrown while a .ts app loads names its line and column in the .ts file", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const err = await loadFails(
    t,
    dir,
    "throws.ts",
    `${HEAD}function add(a: number, b: number) { return a + b; }\n\nserver.tool(add);\n    throw new Error("bad config");\n`,
  );
  assert.match(err, new RegExp(`^start_mcp: ${join(dir, "throws.ts")}:6:11 Error: bad config\n    at .*throws\\.ts:6:11\\)?\n$`));
});

test("a .mjs syntax error in an imported file is reported at that file's line and column", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "bad.mjs"), "const a = 1;\n\nfoo(a ) );\n");
  const err = await loadFails(t, dir, "app.mjs", `${HEAD}import "./sub/bad.mjs";\n`);
  assert.match(err, new RegExp(`^start_mcp: ${join(dir, "sub", "bad.mjs")}:3:\\d+ \\S*Error: .*\n$`));
});

test("Node's own ES module syntax error (no place in it): `node --check` finds the file, line and column", (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "app.mjs"), `import "./sub/ok.mjs";\nimport { x } from './sub/bad.mjs';\n`);
  writeFileSync(join(dir, "sub", "ok.mjs"), "export const ok = 1;\n");
  writeFileSync(join(dir, "sub", "bad.mjs"), "const a = 1;\n\nfoo(a ) );\n");
  // The shape Node 20 gives for a module that does not parse: the message, internal frames only.
  const err = new SyntaxError("Unexpected token ')'");
  err.stack =
    "SyntaxError: Unexpected token ')'\n    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)\n    at ModuleLoader.moduleStrategy (node:internal/modules/esm/translators:146:18)";
  const said = describeLoadError({ file: "lab/app.mjs", path: join(dir, "app.mjs") }, err, []);
  assert.equal(said, "lab/sub/bad.mjs:3:9 SyntaxError: Unexpected token ')'");
});
