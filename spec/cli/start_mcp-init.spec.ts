// `start_mcp init DIR` (issue 34.5): a folder outside the clone gets a tsconfig.json whose
// `paths` lead `import … from "hubmcp"` to the running hubmcp's declarations, so `tsc -p DIR`
// (and an editor) type-checks an app there with nothing installed beside it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { launcherEnv, ROOT, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";

const TSC = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");

const APP = `import { McpServer, s, type ToolContext } from "hubmcp";
import { startGateway } from "hubmcp/gateway";

export const server = new McpServer("typed-app", { version: "1.0.0" });
server.tool(function divide(a: number, b: number) {
  /** Divide a by b. */
  return a / b;
});
server.tool(async ({ steps }: { steps: number }, ctx: ToolContext) => {
  ctx.reportProgress(steps, steps);
  return "ok";
}, { name: "crunch", input: { steps: s.number() } });
export type Start = typeof startGateway;
`;

function tsc(dir: string): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [TSC, "-p", dir], { encoding: "utf8", timeout: 60_000 });
  return { status: run.status, out: run.stdout + run.stderr };
}

test("init writes a tsconfig.json that gives a .ts app outside the clone hubmcp's types in tsc", { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-init-");
  const env = launcherEnv(join(dir, "cache"));
  const cli = spawnCli(t, ["init", dir], env);
  assert.equal((await cli.exit).code, 0, cli.stderr());
  assert.match(cli.stdout(), new RegExp(`^wrote ${join(dir, "tsconfig.json")}: .*types from ${join(ROOT, "dist", "lib")}\\n`));
  const config = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"));
  assert.deepEqual(config.compilerOptions.paths.hubmcp, [join(ROOT, "dist", "lib", "index.d.ts")]);

  writeFileSync(join(dir, "app.ts"), APP);
  const ok = tsc(dir);
  assert.equal(ok.status, 0, ok.out);
  // The types are hubmcp's own, not `any`: a misuse is caught.
  writeFileSync(join(dir, "wrong.ts"), `import { McpServer } from "hubmcp";\nexport const name: string = new McpServer("x");\n`);
  const wrong = tsc(dir);
  assert.equal(wrong.status, 2);
  assert.match(wrong.out, /wrong\.ts\(2,14\): error TS2322: Type 'McpServer' is not assignable to type 'string'/);
  assert.doesNotMatch(wrong.out, /Cannot find module/);

  const again = spawnCli(t, ["init", dir], env);
  assert.equal((await again.exit).code, 1);
  assert.match(again.stderr(), /tsconfig\.json exists; leaving it as it is\. To get hubmcp's types, add to its compilerOptions:\n {2}"paths": \{"hubmcp":/);
  const usage = spawnCli(t, ["init", dir, "--force"], env);
  assert.equal((await usage.exit).code, 2);
  const missing = spawnCli(t, ["init", join(dir, "nope")], env);
  assert.equal((await missing.exit).code, 1);
  assert.match(missing.stderr(), /nope does not exist/);
});
