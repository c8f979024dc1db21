// start_mcp in local mode, spawned as users run it: ports, failures to start, --debug,
// --proxy and --python-env (the basic lifecycle is in start_mcp.spec.ts).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { request } from "node:http";
import { delimiter, join } from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fakeConda, launcherEnv, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

const LOCAL = ["--host", "127.0.0.1", "--port", "0"];
// Compiled TypeScript apps are cached here, not in the user's cache.
const CACHE = mkdtempSync(join(tmpdir(), "hubmcp-cache-"));
after(() => rmSync(CACHE, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => launcherEnv(CACHE, extra);

test("a port in use: one line, exit 1", { timeout: 30_000 }, async (t) => {
  const blocker = createServer();
  await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => blocker.close(() => done())));
  const port = (blocker.address() as { port: number }).port;
  const app = writeApp(tempDir(t));
  const cli = spawnCli(t, ["--app", app, "--host", "127.0.0.1", "--port", String(port)], env());
  assert.equal((await cli.exit).code, 1);
  assert.equal(cli.stderr(), `start_mcp: port ${port} is already in use\n`);
});

test("MCP_PORT sets the port when --port is absent", { timeout: 30_000 }, async (t) => {
  const blocker = createServer();
  await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => blocker.close(() => done())));
  const port = (blocker.address() as { port: number }).port;
  const cli = spawnCli(t, ["--app", writeApp(tempDir(t)), "--host", "127.0.0.1"], env({ MCP_PORT: String(port) }));
  assert.equal((await cli.exit).code, 1);
  assert.match(cli.stderr(), new RegExp(`port ${port} is already in use`));
});

test("an app without a server, or one that throws, exits 1 with a message naming the file", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "none.mjs"), "export const tools = [];\n");
  writeFileSync(join(dir, "throws.mjs"), "throw new Error('cannot start: missing data file');\n");
  const none = spawnCli(t, ["--app", join(dir, "none.mjs"), ...LOCAL], env());
  assert.equal((await none.exit).code, 1);
  assert.match(none.stderr(), /none\.mjs does not export a McpServer as `server` \(named or default\); found exports: tools/);
  const throws = spawnCli(t, ["--app", join(dir, "throws.mjs"), ...LOCAL], env());
  assert.equal((await throws.exit).code, 1);
  assert.match(throws.stderr(), /throws\.mjs:1:7 Error: cannot start: missing data file\n\s+at .*throws\.mjs:1:7/);
  const missing = spawnCli(t, ["--app", join(dir, "nope.mjs"), ...LOCAL], env());
  assert.equal((await missing.exit).code, 1);
  assert.match(missing.stderr(), /app file not found/);
});

test("--debug logs one line per request without cookies or queries", { timeout: 30_000 }, async (t) => {
  const cli = spawnCli(t, ["--app", writeApp(tempDir(t)), ...LOCAL, "--debug"], env());
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  await fetch(`${url}?session_id=zzz`, { headers: { cookie: "secret=1", authorization: "Bearer tok" } });
  await cli.waitForErr(/GET \/ 200 [\d.]+ms session=zzz\n/);
  assert.doesNotMatch(cli.stderr(), /secret|tok|session_id/);
});

test("--port 0 --path-prefix --ready-line: the ready line comes first, naming the bound port and the prefix; no hub is looked for", {
  timeout: 30_000,
}, async (t) => {
  const dir = tempDir(t);
  // A hub session's variables, with no resources file: an explicit prefix means no hub mode and no warning about it.
  const cli = spawnCli(t, ["--app", writeApp(dir), ...LOCAL, "--path-prefix", "/weber/s/c/0", "--ready-line"], env({ SESSION: "777", SESSIONDIR: dir }));
  await cli.waitFor(/SSE endpoint: \S+\n/);
  const [first, second] = cli.stdout().split("\n");
  const ready = JSON.parse(first!) as { hubmcp: string; url: string; prefix: string };
  assert.equal(first, `{"hubmcp":"ready","url":"${ready.url}","prefix":"/weber/s/c/0"}`);
  assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.notEqual(new URL(ready.url).port, "0");
  assert.equal(second, `MCP server ready at ${ready.url}weber/s/c/0/`);
  for (const path of ["weber/s/c/0/openapi.json", "openapi.json"]) assert.equal((await fetch(`${ready.url}${path}`)).status, 200, path);
  assert.doesNotMatch(cli.stderr(), /hub|resources/);
});

test("--proxy is ignored outside a hub session, with a note", { timeout: 30_000 }, async (t) => {
  const cli = spawnCli(t, ["--app", writeApp(tempDir(t)), ...LOCAL, "--proxy", "builtin"], env());
  await cli.waitFor(/ready at/);
  assert.match(cli.stderr(), /--proxy applies on a hub session only; ignored/);
});

test("--python-env puts the conda environment first on PATH for tools; missing env or conda: exit 1", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const conda = fakeConda(dir, ["AIIDA", "other"]);
  const app = writeApp(
    dir,
    "py.mjs",
    `import { execFileSync } from "node:child_process";
server.tool(function which_python() { return execFileSync("python", [], { encoding: "utf8" }).trim() + " " + process.env.CONDA_DEFAULT_ENV; }, { description: "Python", inputSchema: { type: "object", properties: {} } });`,
  );
  const path = `${conda.bin}${delimiter}${process.env.PATH}`;
  const cli = spawnCli(t, ["--app", app, ...LOCAL, "--python-env", "AIIDA"], env({ PATH: path }));
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const res = await fetch(`${url}tools/which_python`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  assert.deepEqual(await res.json(), { result: `python from ${join(conda.root, "envs", "AIIDA")} AIIDA` });
  assert.match(cli.stderr(), /python environment AIIDA/);

  const missing = spawnCli(t, ["--app", app, ...LOCAL, "--python-env", "nope"], env({ PATH: path }));
  assert.equal((await missing.exit).code, 1);
  assert.equal(missing.stderr(), 'start_mcp: conda environment "nope" not found; available: AIIDA, base, other\n');

  const noConda = spawnCli(t, ["--app", app, ...LOCAL, "--python-env", "AIIDA"], env({ PATH: tempDir(t) }));
  assert.equal((await noConda.exit).code, 1);
  assert.match(noConda.stderr(), /no `conda` command was found on PATH/);
});

test("on 0.0.0.0 a rebound Host gets 403; --allowed-host adds the names clients use", { timeout: 30_000 }, async (t) => {
  const cli = spawnCli(t, ["--app", writeApp(tempDir(t)), "--host", "0.0.0.0", "--port", "0", "--allowed-host", "lab.example.org"], env());
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const port = new URL(url!).port;
  const status = (host: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const r = request({ host: "127.0.0.1", port, path: "/sse", headers: { host, accept: "text/event-stream" } }, (res) => {
        resolve(res.statusCode!);
        res.destroy();
      });
      r.on("error", reject);
      r.end();
    });
  assert.equal(await status(`evil.example:${port}`), 403);
  assert.equal(await status(`lab.example.org:${port}`), 200);
  assert.equal(await status(`127.0.0.1:${port}`), 200);
});
