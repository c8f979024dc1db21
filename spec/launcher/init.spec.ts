// start_mcp init's own decisions (the command end to end is spec/cli/start_mcp-init.spec.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initCommand, packageRootOf } from "../../lib/launcher/init.ts";

test("the running hubmcp's root, built or from source", () => {
  assert.equal(packageRootOf(pathToFileURL("/opt/hubmcp/dist/lib/launcher/init.js").href), "/opt/hubmcp");
  assert.equal(packageRootOf(pathToFileURL("/work/hubmcp/lib/launcher/init.ts").href), "/work/hubmcp");
});

test("a hubmcp without built declarations says how to build them, and writes nothing", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-init-unit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
  assert.equal(initCommand([dir], io, join(dir, "no-hubmcp")), 1);
  assert.deepEqual(lines, [
    `start_mcp: hubmcp's type declarations are not built (${join(dir, "no-hubmcp", "dist", "lib")}); run \`npm run build\` in ${join(dir, "no-hubmcp")}`,
  ]);
});
