// `start_mcp --stdio`: stdout carries protocol lines only, even when the app prints; the
// server stops cleanly when the client closes stdin. (The official SDK's client drives the
// full protocol over it in spec/interop/stdio.spec.ts.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

test("--stdio: the app's console output goes to stderr, and the end of stdin ends the server with 0", async (t) => {
  const app = writeApp(tempDir(t), "app.mjs", `console.log("loaded the lab tools"); console.info("info too");`);
  // spawnCli gives the child no stdin, so the client side is closed from the start.
  const cli = spawnCli(t, ["--app", app, "--stdio"], { ...process.env });
  const { code } = await cli.exit;
  assert.equal(code, 0, cli.stderr());
  assert.equal(cli.stdout(), "", "nothing but protocol messages may reach stdout");
  assert.match(cli.stderr(), /loaded the lab tools/);
  assert.match(cli.stderr(), /info too/);
  assert.match(cli.stderr(), /ready on stdio/);
});
