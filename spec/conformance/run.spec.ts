// `npm run conformance` fails cleanly: when the suite cannot be installed (a version that
// does not exist, a registry that does not answer) or the server cannot start, it says
// so in one line, exits 1, frees the port and leaves no process of its own behind.
// Offline: npm points at a closed loopback port. The happy path needs the network and
// is `npm run conformance` itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { freePort, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";
import { extensionScenarios, parseArgs } from "./run.mjs";

function offlineEnv(dir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_CACHE_HOME: join(dir, "cache"),
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_registry: "http://127.0.0.1:9/",
    npm_config_fetch_retries: "0",
    npm_config_update_notifier: "false",
    CONFORMANCE_TIMEOUT_MS: "50000",
    ...extra,
  };
}

/** Runs the script in its own process group, so whatever it started can be counted afterwards. */
async function runScript(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string; stdout: string; pgid: number }> {
  const child = spawn(process.execPath, [join(ROOT, "spec", "conformance", "run.mjs")], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { code, stderr, stdout, pgid: child.pid! };
}

/** The processes still in the group, for the failure message. */
function groupMembers(pgid: number): string {
  const ps = spawnSync("ps", ["-o", "pid,args", "-g", String(pgid)], { encoding: "utf8" });
  return ps.stdout ?? "";
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the group is gone within `ms`. Grandchildren whose parent was just killed (a
 * compile child, tsx's esbuild service) exit on their own when their pipe closes, a moment
 * after the script itself: this waits for that, and only that long.
 */
async function groupGone(pgid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

async function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (ok) await new Promise<void>((done) => probe.close(() => done()));
  return ok;
}

test("a suite that cannot be installed: one line, exit 1, port free, nothing left running", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const port = await freePort();
  const run = await runScript(offlineEnv(dir, { CONFORMANCE_VERSION: "0.0.0-does-not-exist", CONFORMANCE_PORT: String(port) }));
  t.after(() => {
    if (groupAlive(run.pgid)) process.kill(-run.pgid, "SIGKILL");
  });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^conformance: could not install the suite 0\.0\.0-does-not-exist and Node 22 from npm \(.+\)\n$/);
  assert.equal(run.stdout, "");
  assert.equal(await groupGone(run.pgid), true, `a process of the run survived:\n${groupMembers(run.pgid)}`);
  assert.equal(await portFree(port), true, "the server still holds its port");
});

test("a server that cannot start: one line naming why, exit 1, nothing left running", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const taken: Server = createServer();
  await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const run = await runScript(offlineEnv(dir, { CONFORMANCE_VERSION: "0.0.0-does-not-exist", CONFORMANCE_PORT: String(port) }));
  t.after(() => {
    if (groupAlive(run.pgid)) process.kill(-run.pgid, "SIGKILL");
  });
  assert.equal(run.code, 1);
  // Whichever fails first is reported; with the port taken that is normally the server.
  assert.match(run.stderr, /^conformance: (the server stopped before it was ready \(start_mcp: port \d+ is already in use\)|could not install .+)\n$/);
  assert.equal(await groupGone(run.pgid), true, `a process of the run survived:\n${groupMembers(run.pgid)}`);
});

test("the suite version and extra arguments are parameters", () => {
  assert.deepEqual(parseArgs([], {}), { version: "0.1.16", suiteArgs: ["--suite", "all"] });
  assert.deepEqual(parseArgs(["--scenario", "ping"], { CONFORMANCE_VERSION: "0.2.0-alpha.12" }), {
    version: "0.2.0-alpha.12",
    suiteArgs: ["--scenario", "ping"],
  });
  assert.deepEqual(parseArgs(["--suite-version", "9.9.9", "--verbose"], { CONFORMANCE_VERSION: "1.0.0" }), {
    version: "9.9.9",
    suiteArgs: ["--suite", "all", "--verbose"],
  });
  assert.deepEqual(parseArgs(["--suite-version=2.0.0", "--suite", "active"], {}), { version: "2.0.0", suiteArgs: ["--suite", "active"] });
  assert.deepEqual(parseArgs(["--suite-version", "0.2.0-alpha.12", "--extensions", "--timeout", "5000"], {}), {
    version: "0.2.0-alpha.12",
    suiteArgs: ["--timeout", "5000"],
    extensions: true,
  });
});

test("the extension scenarios are the server scenarios the suite's list tags [extension]", () => {
  const listing = [
    "Server scenarios (test against a server):",
    "  - ping [2025-06-18,2025-11-25]",
    "  - sep-2640-skills-enumeration [extension]",
    "  - tasks-lifecycle [extension]",
    "",
    "Client scenarios (test against a client):",
    "  - sep-2640-client-verify-size [extension]",
  ].join("\n");
  assert.deepEqual(extensionScenarios(listing), ["sep-2640-skills-enumeration", "tasks-lifecycle"]);
  assert.deepEqual(extensionScenarios("Usage: conformance"), []);
});
