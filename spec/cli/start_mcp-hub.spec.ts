// start_mcp on a hub session: a temporary SESSIONDIR with a resources file, fake `use`
// and `wrwroxy` reached through a login shell, and every route reached through the proxy
// path with the session Cookie. Ports are free ports given through HUBMCP_*_PORT.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { alive, fakeConda, fakeHubTools, freePort, hubSession, launcherEnv, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

const COOKIE = "weber-auth-hub=777%3Asecret";

const hubEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => launcherEnv(undefined, extra);

/** The data of the next SSE frame named `name` (frames may carry id/retry lines too). */
async function readEvent(reader: ReadableStreamDefaultReader<Uint8Array>, name: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const frames = text.split("\n\n");
    for (const frame of frames.slice(0, -1)) {
      const lines = frame.split("\n");
      if (lines.includes(`event: ${name}`)) return lines.find((l) => l.startsWith("data: "))!.slice(6);
    }
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`stream ended before event ${name}`);
    text += decoder.decode(chunk.value, { stream: true });
  }
}

/** Every section-A route, through `base` (the local proxy address plus the weber path). */
async function exerciseRoutes(base: string, prefix: string): Promise<void> {
  const headers = { cookie: COOKIE, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const info = await fetch(base, { headers });
  assert.equal(info.status, 200);
  assert.equal(((await info.json()) as { name: string }).name, "spec-app");

  const sse = await fetch(`${base}sse`, { headers: { cookie: COOKIE } });
  const sseReader = sse.body!.getReader();
  assert.match(await readEvent(sseReader, "endpoint"), new RegExp(`^${prefix}/\\?session_id=`));

  const mcpStream = await fetch(`${base}mcp`, { headers: { cookie: COOKIE, accept: "text/event-stream" } });
  const endpoint = await readEvent(mcpStream.body!.getReader(), "endpoint");
  assert.match(endpoint, new RegExp(`^${prefix}/mcp\\?session_id=`));
  await mcpStream.body!.cancel().catch(() => {});

  const init = await fetch(`${base}mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } },
    }),
  });
  assert.equal(init.status, 200);
  const session = init.headers.get("mcp-session-id");
  assert.ok(session, "Mcp-Session-Id passes back through the proxy");
  await init.text();

  const inSession = await fetch(`${base}mcp`, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  assert.equal(inSession.status, 200, "the forwarded Mcp-Session-Id names a live session");
  await inSession.text();
  // A POST naming no session is answered and broadcast to every /sse stream.
  const ping = await fetch(base, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }) });
  assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: 3, result: {} });
  assert.match(await readEvent(sseReader, "message"), /"id":3,"result":\{\}/);
  await sse.body!.cancel().catch(() => {});

  const tool = await fetch(`${base}tools/echo`, { method: "POST", headers, body: JSON.stringify({ text: "through the proxy" }) });
  assert.deepEqual(await tool.json(), { result: "through the proxy" });
  const openapi = (await (await fetch(`${base}openapi.json`, { headers })).json()) as { info: { title: string } };
  assert.equal(openapi.info.title, "spec-app");
  const discovery = (await (await fetch(`${base}.well-known/mcp.json`, { headers })).json()) as { mcpVersion: string };
  assert.equal(discovery.mcpVersion, "2024-11-05");
}

/** Kills the fake wrwroxy if a failed test left it running (it runs in its own process group). */
function killRecorded(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8"));
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

function printedLines(proxyUrl: string): string {
  return `Proxy URL : ${proxyUrl}\nMCP server ready at ${proxyUrl}\nSSE endpoint: ${proxyUrl}sse\n`;
}

test("with wrwroxy found through `use`: server behind the external proxy, every route through the proxy path", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir);
  const tools = fakeHubTools(dir);
  const proxyPort = await freePort();
  t.after(() => killRecorded(tools.pidFile));
  const cli = spawnCli(
    t,
    ["--app", writeApp(dir), "--port", "1", "--debug"],
    hubEnv({ HOME: tools.home, SESSION: hub.SESSION, SESSIONDIR: hub.SESSIONDIR, HUBMCP_PROXY_PORT: String(proxyPort), HUBMCP_SERVER_PORT: "0" }),
  );
  await cli.waitFor(/SSE endpoint: .*\n/);
  assert.equal(cli.stdout(), printedLines(hub.proxyUrl));
  const argv = JSON.parse(readFileSync(tools.argvFile, "utf8")) as string[];
  const serverPort = Number(argv[argv.indexOf("--forwardPort") + 1]);
  assert.deepEqual(argv, [
    "--listenHost",
    "0.0.0.0",
    "--listenPort",
    String(proxyPort),
    "--forwardHost",
    "127.0.0.1",
    "--forwardPort",
    String(serverPort),
    "--stream-log",
  ]);
  assert.notEqual(serverPort, 1, "hub mode ignores --port");
  // With no --host a hub session keeps the interface specification's 0.0.0.0, and says so.
  assert.match(
    cli.stderr(),
    new RegExp(`listening on 0\\.0\\.0\\.0, beyond this machine: whoever reaches port ${serverPort} .+the hub's proxy reaches it there\\)`),
  );
  assert.match(cli.stderr(), new RegExp(`reverse proxy wrwroxy-0\\.10 \\(pid \\d+\\) on port ${proxyPort}`));

  await exerciseRoutes(`http://127.0.0.1:${proxyPort}${hub.prefix}/`, hub.prefix);
  assert.match(cli.stderr(), /POST \/tools\/echo 200 [\d.]+ms session=-/);

  const proxyPid = Number(readFileSync(tools.pidFile, "utf8"));
  assert.ok(alive(proxyPid));
  cli.child.kill("SIGTERM");
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
  assert.equal(alive(proxyPid), false, "no orphan reverse proxy");
});

/** start_mcp on a hub session behind the fake external proxy, ready; returns the CLI and the proxy's pid. */
async function behindExternalProxy(t: TestContext) {
  const dir = tempDir(t);
  const hub = hubSession(dir);
  const tools = fakeHubTools(dir);
  t.after(() => killRecorded(tools.pidFile));
  const cli = spawnCli(
    t,
    ["--app", writeApp(dir)],
    hubEnv({ HOME: tools.home, SESSION: hub.SESSION, SESSIONDIR: hub.SESSIONDIR, HUBMCP_PROXY_PORT: String(await freePort()), HUBMCP_SERVER_PORT: "0" }),
  );
  await cli.waitFor(/SSE endpoint/);
  return { cli, proxyPid: Number(readFileSync(tools.pidFile, "utf8")) };
}

test("closing the terminal (SIGHUP) stops start_mcp and its detached reverse proxy", { timeout: 30_000 }, async (t) => {
  const { cli, proxyPid } = await behindExternalProxy(t);
  cli.child.kill("SIGHUP");
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
  assert.equal(alive(proxyPid), false, "no orphan reverse proxy");
});

test("the external proxy exiting on its own stops start_mcp with status 1", { timeout: 30_000 }, async (t) => {
  const { cli, proxyPid } = await behindExternalProxy(t);
  process.kill(proxyPid, "SIGTERM");
  assert.equal((await cli.exit).code, 1);
  assert.match(cli.stderr(), /the reverse proxy exited \(code 0\); stopping/);
});

test("--proxy builtin: hubmcp's own proxy in front, every route through the proxy path", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir, "4242", "k3y", 10007);
  const cli = spawnCli(
    t,
    ["--app", writeApp(dir), "--proxy", "builtin", "--host", "127.0.0.1"],
    hubEnv({ HOME: tempDir(t), SESSION: hub.SESSION, SESSIONDIR: hub.SESSIONDIR, HUBMCP_PROXY_PORT: "0", HUBMCP_SERVER_PORT: "0" }),
  );
  await cli.waitFor(/SSE endpoint: .*\n/);
  assert.equal(cli.stdout(), printedLines(hub.proxyUrl));
  const [, proxyPort] = await cli.waitForErr(/built-in reverse proxy on port (\d+)/);
  await exerciseRoutes(`http://127.0.0.1:${proxyPort}${hub.prefix}/`, hub.prefix);
  cli.child.kill("SIGINT");
  assert.deepEqual(await cli.exit, { code: 0, signal: null });
});

test("without a reverse proxy (auto, none found): the server takes the public port and strips the prefix itself", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir, "55", "zz", 9003);
  const tools = fakeHubTools(dir, { wrwroxyVersions: [] });
  const cli = spawnCli(
    t,
    ["--app", writeApp(dir), "--host", "127.0.0.1"],
    hubEnv({ HOME: tools.home, SESSION_ID: hub.SESSION, SESSION_DIR: hub.SESSIONDIR, HUBMCP_PROXY_PORT: "0" }),
  );
  await cli.waitFor(/SSE endpoint: .*\n/);
  assert.equal(cli.stdout(), printedLines(hub.proxyUrl));
  const [, port] = await cli.waitForErr(/no reverse proxy; server on port (\d+) strips \/weber\/55\/…\/3/);
  await exerciseRoutes(`http://127.0.0.1:${port}${hub.prefix}/`, hub.prefix);
  assert.ok(!cli.stderr().includes("/zz/"), "the file-transfer cookie never reaches the log");
  cli.child.kill("SIGTERM");
  assert.equal((await cli.exit).code, 0);
});

test("--proxy external without wrwroxy, a bad port variable, and a busy proxy port all exit with one line", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir);
  const base = { HOME: tempDir(t), SESSION: hub.SESSION, SESSIONDIR: hub.SESSIONDIR };
  const external = spawnCli(t, ["--app", writeApp(dir), "--proxy", "external"], hubEnv({ ...base, HUBMCP_SERVER_PORT: "0" }));
  assert.equal((await external.exit).code, 1);
  assert.equal(external.stderr(), "start_mcp: --proxy external: no wrwroxy package found through `use`\n");

  const badPort = spawnCli(t, ["--app", writeApp(dir)], hubEnv({ ...base, HUBMCP_PROXY_PORT: "x" }));
  assert.equal((await badPort.exit).code, 2);
  assert.equal(badPort.stderr(), "start_mcp: HUBMCP_PROXY_PORT must be a port number (0-65535)\n");

  const busy = await freePort();
  const holder = spawnCli(t, ["--app", writeApp(dir), "--host", "127.0.0.1", "--port", String(busy)], hubEnv({ HOME: base.HOME }));
  await holder.waitFor(/ready/);
  const builtin = spawnCli(
    t,
    ["--app", writeApp(dir), "--proxy", "builtin", "--host", "127.0.0.1"],
    hubEnv({ ...base, HUBMCP_PROXY_PORT: String(busy), HUBMCP_SERVER_PORT: "0" }),
  );
  assert.equal((await builtin.exit).code, 1);
  assert.equal(builtin.stderr(), `start_mcp: port ${busy} is already in use\n`);
  holder.child.kill("SIGTERM");
  assert.equal((await holder.exit).code, 0);
});

test("a session without a usable resources file falls back to local mode with a warning", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir);
  rmSync(join(hub.SESSIONDIR, "resources"));
  const cli = spawnCli(
    t,
    ["--app", writeApp(dir), "--host", "127.0.0.1", "--port", "0"],
    hubEnv({ HOME: tempDir(t), SESSION: hub.SESSION, SESSIONDIR: hub.SESSIONDIR }),
  );
  await cli.waitFor(/SSE endpoint: http:\/\/127\.0\.0\.1:\d+\/sse\n/);
  assert.match(cli.stderr(), /warning: hub session resources file not readable; running locally/);
  assert.doesNotMatch(cli.stdout(), /Proxy URL/);
});

test("--python-env on a hub: the server's tools get the conda environment, the reverse proxy does not", { timeout: 30_000 }, async (t) => {
  const dir = tempDir(t);
  const hub = hubSession(dir);
  const tools = fakeHubTools(dir);
  const conda = fakeConda(dir, ["AIIDA"]);
  t.after(() => killRecorded(tools.pidFile));
  const app = writeApp(
    dir,
    "py.mjs",
    `server.tool(function env_name() { return process.env.CONDA_DEFAULT_ENV; }, { description: "Env", inputSchema: { type: "object", properties: {} } });`,
  );
  const proxyPort = await freePort();
  const cli = spawnCli(
    t,
    ["--app", app, "--python-env", "AIIDA"],
    hubEnv({
      HOME: tools.home,
      PATH: `${conda.bin}${delimiter}${process.env.PATH}`,
      SESSION: hub.SESSION,
      SESSIONDIR: hub.SESSIONDIR,
      HUBMCP_PROXY_PORT: String(proxyPort),
      HUBMCP_SERVER_PORT: "0",
    }),
  );
  await cli.waitFor(/SSE endpoint/);
  const res = await fetch(`http://127.0.0.1:${proxyPort}${hub.prefix}/tools/env_name`, {
    method: "POST",
    headers: { cookie: COOKIE, "content-type": "application/json" },
    body: "{}",
  });
  assert.deepEqual(await res.json(), { result: "AIIDA" });
  assert.equal(readFileSync(`${tools.pidFile}.conda`, "utf8"), "none");
  cli.child.kill("SIGTERM");
  assert.equal((await cli.exit).code, 0);
});
