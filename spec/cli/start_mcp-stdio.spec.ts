// `start_mcp --stdio`: stdout carries protocol lines only, even when the app prints; the
// server stops cleanly when the client closes stdin. (The official SDK's client drives the
// full protocol over it in spec/interop/stdio.spec.ts.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

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

// Every way an app can write to stdout: at load and from a tool, through console, the
// process.stdout stream (also one captured at load), fd 1 directly, and a program it starts
// with inherited stdio. None of it may reach the protocol stream.
const NOISY = `
import { spawnSync } from "node:child_process";
import { writeSync } from "node:fs";
const captured = process.stdout;
process.stdout.write("noise-at-load\\n");
server.tool(function noisy() {
  console.log("noise-console");
  process.stdout.write("noise-stream\\n");
  captured.write("noise-captured\\n");
  writeSync(1, "noise-fd1\\n");
  spawnSync("sh", ["-c", "echo noise-subprocess"], { stdio: "inherit" });
  return "quiet answer";
});
`;

test("--stdio: nothing the app writes to stdout, however, reaches the protocol stream", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const app = writeApp(dir, "app.mjs", NOISY);
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "cli", "start_mcp.ts"), "--app", app, "--stdio"], {
    env: { ...process.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const replies = new Map<number, (line: Record<string, unknown>) => void>();
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
    for (const line of c.split("\n").filter(Boolean)) {
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === "number") replies.get(message.id)?.(message);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const request = (id: number, method: string, params: object): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      replies.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } });
  const called = await request(2, "tools/call", { name: "noisy", arguments: {} });
  assert.deepEqual(called.result, { content: [{ type: "text", text: "quiet answer" }], isError: false });
  child.stdin.end();
  assert.equal(await exit, 0, err);
  for (const line of out.split("\n").filter(Boolean)) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0", `not a protocol line: ${line}`);
  assert.doesNotMatch(out, /noise/);
  for (const noise of ["at-load", "console", "stream", "captured", "fd1", "subprocess"]) assert.match(err, new RegExp(`noise-${noise}\\n`));
});

/** start_mcp --stdio with stdin held open; resolves once it is ready. "close" fires when the serving child is gone too. */
async function stdioServer(t: { after(fn: () => unknown): void }) {
  const app = writeApp(tempDir(t), "app.mjs");
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "cli", "start_mcp.ts"), "--app", app, "--stdio"], {
    env: { ...process.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  t.after(() => child.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
      if (/ready on stdio/.test(err)) resolve();
    });
    void closed.then(() => reject(new Error(err)));
  });
  return { child, closed, stderr: () => err };
}

test("--stdio: SIGTERM to start_mcp stops the serving child cleanly, once", { timeout: 60_000 }, async (t) => {
  const { child, closed, stderr } = await stdioServer(t);
  child.kill("SIGTERM");
  assert.deepEqual(await closed, { code: 0, signal: null });
  assert.equal(stderr().match(/SIGTERM received; shutting down/g)?.length, 1, stderr());
  assert.doesNotMatch(stderr(), /again; exiting now/);
});

test("--stdio: if start_mcp itself is killed, the serving child stops too", { timeout: 60_000 }, async (t) => {
  const { child, closed } = await stdioServer(t);
  child.kill("SIGKILL");
  // "close" waits for every holder of the pipes: the child has exited once it fires. (Node
  // closes our end of stdin when start_mcp exits, so the child sees the client go; without
  // that, it notices its parent went: spec/util/cli-entry.spec.ts runs the same watch.)
  await closed;
});

test("--stdio: a protocol descriptor variable set by hand that names no open descriptor is one clear line, exit 1", { timeout: 60_000 }, async (t) => {
  const app = writeApp(tempDir(t), "app.mjs");
  const cli = spawnCli(t, ["--app", app, "--stdio"], { ...process.env, HUBMCP_STDIO_PROTOCOL_FD: "97" });
  assert.equal((await cli.exit).code, 1);
  assert.equal(cli.stderr(), "start_mcp: HUBMCP_STDIO_PROTOCOL_FD does not name an open descriptor; it is set by start_mcp --stdio for itself\n");
  assert.equal(cli.stdout(), "");
});
