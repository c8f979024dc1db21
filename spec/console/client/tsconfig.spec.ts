// The console's browser code is checked by the compiler: client/tsconfig.json holds it to the
// DOM's types (strict, no Node globals), and `npm run typecheck` runs it. A probe with a
// misspelt DOM property and a Node global must fail under that configuration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT, tempDir } from "../../helpers/launcher-fixtures.ts";

const CONFIG = fileURLToPath(new URL("../../../lib/console/client/tsconfig.json", import.meta.url));

test("npm run typecheck checks the client with its own configuration", () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  assert.match(scripts.typecheck!, /tsc -p lib\/console\/client(\s|$)/);
});

test("the client configuration refuses a misspelt DOM property and a Node global", { timeout: 60_000 }, (t) => {
  const dir = tempDir(t, "hubmcp-client-check-");
  copyFileSync(CONFIG, join(dir, "tsconfig.json"));
  writeFileSync(
    join(dir, "probe.js"),
    "export const height = document.documentElement.scrollHeigth;\nexport const home = process.env.HOME;\nexport const ok = document.body.scrollHeight;\n",
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", dir], { encoding: "utf8", timeout: 50_000 });
  assert.equal(tsc.status, 2, tsc.stdout + tsc.stderr);
  const errors = tsc.stdout.split("\n").filter((line) => line.includes("error TS"));
  assert.equal(errors.length, 2, tsc.stdout);
  assert.match(errors[0]!, /probe\.js\(1,\d+\): error TS2551: Property 'scrollHeigth' does not exist on type 'HTMLElement'/);
  assert.match(errors[1]!, /probe\.js\(2,\d+\): error TS25\d\d: Cannot find name 'process'/);
});
