// `--version` on all three commands prints the package's version on stdout and exits 0; the
// version is found from the source tree and from any depth below a hubmcp package.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { packageVersion } from "../../lib/util/cli-entry.ts";
import { ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

for (const bin of ["start_mcp", "hub_gateway", "hub_bridge"]) {
  test(`${bin} --version`, { timeout: 30_000 }, async () => {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", join(ROOT, "cli", `${bin}.ts`), "--version"], { cwd: ROOT });
    assert.equal(stdout, `${bin} ${VERSION}\n`);
    assert.equal(stderr, "");
  });
}

test("packageVersion reads the nearest hubmcp package.json, skipping others, else 0.0.0", (t) => {
  assert.equal(packageVersion(), VERSION);
  const dir = tempDir(t);
  mkdirSync(join(dir, "pkg", "dist", "lib", "util"), { recursive: true });
  writeFileSync(join(dir, "pkg", "package.json"), JSON.stringify({ name: "hubmcp", version: "9.8.7" }));
  writeFileSync(join(dir, "pkg", "dist", "package.json"), JSON.stringify({ name: "other", version: "1.0.0" }));
  assert.equal(packageVersion(pathToFileURL(join(dir, "pkg", "dist", "lib", "util", "cli-entry.js")).href), "9.8.7");
  assert.equal(packageVersion(pathToFileURL(join(dir, "elsewhere.js")).href), "0.0.0");
});
