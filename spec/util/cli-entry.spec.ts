// SIGTERM to `npx start_mcp …` or `npx hub_gateway …` stops the server behind it. npm 11
// runs a bin through `sh -c`; a SIGTERM to npm reaches only that shell, which dies and
// leaves the server running. The command notices its parent went and stops cleanly.
// The bins here are shims in a project's node_modules/.bin (where npx looks first) that run
// this repository's CLI from source, as the packaged bin runs dist/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { alive, launcherEnv, ROOT, tempDir, writeApp, writeScript } from "../helpers/launcher-fixtures.ts";

const TSX_API = join(ROOT, "node_modules", "tsx", "dist", "esm", "api", "index.mjs");

/** A project whose node_modules/.bin/<bin> runs cli/<bin>.ts; the server's pid lands in <dir>/<bin>.pid. */
function projectWithBin(dir: string, bin: string): string {
  const cli = join(ROOT, "cli", `${bin}.ts`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "npx-probe", version: "1.0.0", private: true }));
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  writeScript(
    join(dir, "node_modules", ".bin", bin),
    `#!${process.execPath}
require("node:fs").writeFileSync(${JSON.stringify(join(dir, `${bin}.pid`))}, String(process.pid));
process.argv[1] = ${JSON.stringify(cli)};
import(${JSON.stringify(`file://${TSX_API}`)}).then(({ register }) => { register(); return import(${JSON.stringify(`file://${cli}`)}); });
`,
  );
  return dir;
}

function npx(): string {
  return execFileSync("sh", ["-c", "command -v npx"], { encoding: "utf8" }).trim();
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });
}

/** Runs `npx <bin> ...args` in `dir`; SIGTERM to npx once ready; resolves once every holder of its output (the server too) is gone. */
async function stopThroughNpx(
  t: { after(fn: () => unknown): void },
  dir: string,
  bin: string,
  args: string[],
  ready: RegExp,
): Promise<{ port: number; stderr: string }> {
  const child = spawn(npx(), [bin, ...args], { cwd: dir, env: launcherEnv(join(dir, "cache")), stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => {
    // Only if the spec failed: the server npx left behind.
    try {
      const pid = Number(readFileSync(join(dir, `${bin}.pid`), "utf8"));
      if (alive(pid)) process.kill(pid, "SIGKILL");
    } catch {
      // never started
    }
    child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  // "close": npx and every process holding its stdout/stderr (the server) have exited.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const m = ready.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void closed.then(() => reject(new Error(`npx ${bin} ended before ready:\n${err}`)));
  });
  const pid = Number(readFileSync(join(dir, `${bin}.pid`), "utf8"));
  assert.notEqual(pid, child.pid, "npx runs the server as a separate process");
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const outlived = new Promise<"outlived">((resolve) => (timer = setTimeout(resolve, 20_000, "outlived")));
  const first = await Promise.race([closed.then(() => "stopped" as const), outlived]);
  clearTimeout(timer);
  assert.equal(first, "stopped", `the server outlived npx:\n${err}`);
  assert.equal(alive(pid), false);
  assert.equal(await refused(port), true, "the port is closed");
  return { port, stderr: err };
}

test("SIGTERM to `npx start_mcp` stops the server behind it", { timeout: 90_000 }, async (t) => {
  const dir = projectWithBin(tempDir(t), "start_mcp");
  const app = writeApp(dir, "app.mjs");
  const { stderr } = await stopThroughNpx(t, dir, "start_mcp", ["--app", app, "--host", "127.0.0.1", "--port", "0"], /ready at http:\/\/127\.0\.0\.1:(\d+)\//);
  assert.match(stderr, /start_mcp: the process that started this command exited\n/);
  assert.match(stderr, /start_mcp: SIGHUP received; shutting down\n/);
});

test("SIGTERM to `npx hub_gateway` stops the gateway behind it", { timeout: 90_000 }, async (t) => {
  const dir = projectWithBin(tempDir(t), "hub_gateway");
  writeFileSync(join(dir, "gateway.json"), JSON.stringify({ tools: {} }));
  const { stderr } = await stopThroughNpx(
    t,
    dir,
    "hub_gateway",
    ["--config", join(dir, "gateway.json"), "--port", "0", "--data-dir", join(dir, "data")],
    /hub_gateway ready at http:\/\/127\.0\.0\.1:(\d+)\//,
  );
  assert.match(stderr, /hub_gateway: the process that started this command exited\n/);
});
