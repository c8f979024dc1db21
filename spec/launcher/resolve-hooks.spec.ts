// `hubmcp` falls back to the running copy only when the app's own resolution finds none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { initialize, resolve, resolveSync } from "../../lib/launcher/resolve-hooks.ts";

const SELF = "file:///opt/hubmcp/dist/lib/index.js";

function notFound(): never {
  throw Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" });
}

test("a missing hubmcp resolves to the running copy; anything else is left to Node", async () => {
  initialize({ self: SELF });
  const ctx = { parentURL: "file:///home/u/tool/app.mjs" };
  const next = (specifier: string) => (specifier === SELF || specifier === "installed" ? { url: `file:///found/${specifier.length}` } : notFound());
  assert.deepEqual(await resolve("hubmcp", ctx, next), { url: `file:///found/${SELF.length}` });
  assert.deepEqual(resolveSync("hubmcp", ctx, next), { url: `file:///found/${SELF.length}` });
  assert.deepEqual(await resolve("installed", ctx, next), { url: "file:///found/9" });
  await assert.rejects(resolve("lodash", ctx, next), /Cannot find package/);
  assert.throws(() => resolveSync("lodash", ctx, next), /Cannot find package/);
  const broken = () => {
    throw Object.assign(new Error("bad exports"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  };
  await assert.rejects(resolve("hubmcp", ctx, broken), /bad exports/);
  // An app with its own hubmcp keeps it.
  assert.deepEqual(await resolve("hubmcp", ctx, () => ({ url: "file:///home/u/tool/node_modules/hubmcp/index.js" })), {
    url: "file:///home/u/tool/node_modules/hubmcp/index.js",
  });
});
