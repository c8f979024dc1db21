// start_mcp in local mode, spawned as users run it (under tsx here, so no build is needed).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { launcherEnv, rpcAt, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";
import { main } from "../../cli/start_mcp.ts";

const LOCAL = ["--host", "127.0.0.1", "--port", "0"];
// Compiled TypeScript apps are cached here, not in the user's cache.
const CACHE = mkdtempSync(join(tmpdir(), "hubmcp-cache-"));
after(() => rmSync(CACHE, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => launcherEnv(CACHE, extra);

const rpc = rpcAt;

test("main is exported and does not run on import", () => {
  assert.equal(typeof main, "function");
});

test("--help prints usage and exits 0; usage errors exit 2 with usage on stderr", { timeout: 30_000 }, async (t) => {
  const help = spawnCli(t, ["--help"], env());
  assert.equal((await help.exit).code, 0);
  assert.match(help.stdout(), /^usage: start_mcp --app FILE/);
  for (const args of [["--app", "x.mjs", "--bogus"], [], ["--app", "x.mjs", "--port", "eighty"]]) {
    const bad = spawnCli(t, args, env());
    assert.equal((await bad.exit).code, 2, args.join(" "));
    assert.match(bad.stderr(), /^start_mcp: .+\nusage: start_mcp --app FILE/);
    assert.equal(bad.stdout(), "");
  }
});

test("serves an .mjs app, prints the ready lines, and exits 0 on SIGTERM", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const app = writeApp(dir);
  const cli = spawnCli(t, ["--app", app, ...LOCAL], env());
  const [, url] = await cli.waitFor(/MCP server ready at (http:\/\/127\.0\.0\.1:\d+\/)\n/);
  await cli.waitFor(/SSE endpoint: http:\/\/127\.0\.0\.1:\d+\/sse\n/);
  assert.equal(cli.stdout(), `MCP server ready at ${url}\nSSE endpoint: ${url}sse\n`);
  const list = await rpc(url!, "tools/list");
  assert.deepEqual(
    (list.result!.tools as { name: string }[]).map((x) => x.name),
    ["echo"],
  );
  cli.child.kill("SIGTERM");
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
  assert.match(cli.stderr(), /SIGTERM received; shutting down/);
});

test("with no --host it listens on loopback only and says nothing about exposure", { timeout: 30_000 }, async (t) => {
  const cli = spawnCli(t, ["--app", writeApp(tempDir(t)), "--port", "0"], env());
  const [, url] = await cli.waitFor(/MCP server ready at (http:\/\/127\.0\.0\.1:\d+\/)\n/);
  assert.equal((await rpc(url!, "ping")).result !== undefined, true);
  cli.child.kill("SIGTERM");
  await cli.exit;
  assert.doesNotMatch(cli.stderr(), /beyond this machine/);
});

test("SIGINT: open streams end, a running call still gets its answer, exit 0", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const app = writeApp(
    dir,
    "slow.mjs",
    `server.tool(async function slow() { process.stderr.write("slow started\\n"); await new Promise((r) => setTimeout(r, 300)); return "finished"; }, { description: "Slow", inputSchema: { type: "object", properties: {} } });`,
  );
  const cli = spawnCli(t, ["--app", app, ...LOCAL], env());
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const stream = await fetch(`${url}sse`);
  const reader = stream.body!.getReader();
  await reader.read();
  const call = fetch(`${url}tools/slow`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) => r.json());
  await cli.waitForErr(/slow started/);
  cli.child.kill("SIGINT");
  assert.deepEqual(await call, { result: "finished" });
  for (;;) if ((await reader.read()).done) break;
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
});

test("a second signal exits at once, even while the app's import hangs", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const app = writeApp(dir, "hangs.mjs", `process.stderr.write("importing\\n"); await new Promise((r) => setTimeout(r, 600_000));`);
  const cli = spawnCli(t, ["--app", app, ...LOCAL], env());
  await cli.waitForErr(/importing/);
  // Two different signals: two pending copies of one signal may be delivered as one.
  cli.child.kill("SIGTERM");
  cli.child.kill("SIGINT");
  assert.equal((await cli.exit).code, 1);
  assert.match(cli.stderr(), /again; exiting now/);
});
