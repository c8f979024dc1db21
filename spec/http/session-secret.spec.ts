// The per-session secret between a gateway and the tool server it started: it travels in a
// private file (never argv), is gone from disk and environment once read, and the server
// refuses, with a short fixed answer, every request that lacks it — before the app sees it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { requireSecret, SECRET_COOKIE, SECRET_FILE_ENV, takeSessionSecret } from "../../lib/http/session-secret.ts";
import { launcherEnv, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

const SECRET = "s".repeat(20) + "e".repeat(20);

test("the secret is read from its file, which is removed, and its variable unset", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "secret");
  writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { [SECRET_FILE_ENV]: file };
  assert.deepEqual(takeSessionSecret(env), { secret: SECRET });
  assert.equal(existsSync(file), false);
  assert.equal(SECRET_FILE_ENV in env, false);
  assert.equal(takeSessionSecret({}), null);
  assert.deepEqual(takeSessionSecret({ [SECRET_FILE_ENV]: join(dir, "missing") }), { error: `${SECRET_FILE_ENV} names a file that cannot be read` });
  writeFileSync(file, "short");
  const short = takeSessionSecret({ [SECRET_FILE_ENV]: file });
  assert.ok(short && "error" in short && !short.error.includes("short"), "the file's content is never echoed");
});

test("a guarded server answers only requests carrying the secret; the app never sees it", async (t) => {
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.cookie);
    res.end("app");
  });
  server.on("checkContinue", (req, res) => {
    res.writeContinue();
    server.emit("request", req, res);
  });
  requireSecret(server, SECRET);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => new Promise((done) => server.close(done)));
  const { port } = server.address() as { port: number };
  const send = (headers: Record<string, string>): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ port, host: "127.0.0.1", method: "POST", path: "/mcp", headers }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
      req.end("{}");
    });
  assert.deepEqual(await send({}), { status: 401, body: '{"error":"unauthorized","message":"This tool session answers its gateway only"}' });
  const wrong = await send({ cookie: `${SECRET_COOKIE}=${SECRET.slice(1)}x; other=1` });
  assert.equal(wrong.status, 401);
  assert.doesNotMatch(wrong.body, /sss|other/);
  assert.deepEqual(await send({ cookie: `${SECRET_COOKIE}=${SECRET}` }), { status: 200, body: "app" });
  assert.deepEqual(await send({ cookie: `a=1; ${SECRET_COOKIE}=${SECRET}; b=2`, expect: "100-continue" }), { status: 200, body: "app" });
  assert.deepEqual(seen, [undefined, "a=1; b=2"], "the secret is taken out before the app runs");
});

test("start_mcp with HUBMCP_SECRET_FILE: the secret is in no argv, its file is gone, and requests without it are refused", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "secret");
  writeFileSync(file, SECRET, { mode: 0o600 });
  const cli = spawnCli(t, ["--app", writeApp(dir), "--host", "127.0.0.1", "--port", "0"], launcherEnv(join(dir, "cache"), { [SECRET_FILE_ENV]: file }));
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)/);
  assert.equal(existsSync(file), false);
  assert.doesNotMatch(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }), new RegExp(SECRET));
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  assert.equal((await fetch(`${url}mcp`, { method: "POST", headers, body })).status, 401);
  const ok = await fetch(`${url}mcp`, { method: "POST", headers: { ...headers, cookie: `${SECRET_COOKIE}=${SECRET}` }, body });
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /"text":"hi"/);
});

test("start_mcp refuses to start on an unreadable secret file, without echoing it", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--app", writeApp(dir), "--port", "0"], launcherEnv(join(dir, "cache"), { [SECRET_FILE_ENV]: join(dir, "nope") }));
  assert.equal((await cli.exit).code, 2);
  assert.match(cli.stderr(), /HUBMCP_SECRET_FILE names a file that cannot be read/);
});
