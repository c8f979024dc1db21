// `hub_gateway init` as an operator uses it: init, then the printed start command, then a
// real MCP call with the printed token to the printed URL, through a real start_mcp child.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import type { CliIo } from "../../../lib/gateway/cli/io.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { freePort, ROOT, tempDir } from "../../helpers/launcher-fixtures.ts";
import { stateRootFor } from "../helpers.ts";
import { rpcResult, serveHub } from "./hub-process.ts";

function io(stdin = ""): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => void lines.push(l), err: (l) => void errors.push(l), readStdin: async () => stdin, stopRequested: new Promise(() => {}) };
}

function rpc(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

test("init writes a working gateway: start it as printed, call the demo app with the printed token at the printed URL", { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t, "hub-init-");
  const port = await freePort();
  const out = io();
  const code = await run(
    ["init", "--config", join(dir, "gateway.json"), "--data-dir", join(dir, "hub-data"), "--port", String(port), "--user", "ada"],
    { npm_command: "exec" },
    out,
  );
  assert.equal(code, 0, out.errors.join("\n"));
  const text = out.lines.join("\n");
  const token = /^ {2}(hubmcp_\S+)$/m.exec(text)![1]!;
  const start = /^ {2}npx hub_gateway (.+)$/m.exec(text)![1]!.split(" ");
  const url = /^ {2}(http:\/\/\S+\/mcp)$/m.exec(text)![1]!;
  assert.equal(url, `http://127.0.0.1:${port}/api/mcp/mcpdemo/mcp`);
  assert.match(text, /password of ada, for signing in from OAuth clients \(shown only this once\): \S{20}/);
  assert.equal(statSync(join(dir, "hub-data")).mode & 0o777, 0o700);
  const config = JSON.parse(readFileSync(join(dir, "gateway.json"), "utf8"));
  assert.deepEqual(config, {
    publicUrl: `http://127.0.0.1:${port}`,
    tools: { mcpdemo: { revisions: { default: { app: join(ROOT, "fixtures", "demo", "app.ts") } } } },
  });
  for (const entry of readdirSync(join(dir, "hub-data"), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) assert.ok(!readFileSync(join(entry.parentPath, entry.name), "utf8").includes(token.slice(20)), "the token is stored only as a hash");
  }

  await stateRootFor(t, new FileRecordStore(join(dir, "hub-data")));
  await serveHub(t, start);
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  });
  assert.equal(init.status, 200);
  const session = init.headers.get("mcp-session-id")!;
  assert.ok((await rpcResult(init)).result);
  const call = await fetch(url, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
    body: rpc(2, "tools/call", { name: "add", arguments: { a: 2, b: 3 } }),
  });
  assert.equal(call.status, 200);
  assert.deepEqual((await rpcResult(call)).result?.content, [{ type: "text", text: "5" }]);
});

test("init refuses to overwrite a config, to reuse a data dir open to others, and an app that is not there", async (t) => {
  const dir = tempDir(t, "hub-init-");
  const data = join(dir, "data");
  const base = ["init", "--data-dir", data, "--user", "ada"];
  writeFileSync(join(dir, "app.mjs"), "export const server = null;\n");
  const made = io("my password\n");
  assert.equal(await run([...base, "--config", join(dir, "a.json"), "--app", join(dir, "app.mjs"), "--password-stdin"], {}, made), 0);
  assert.doesNotMatch(made.lines.join("\n"), /password of ada/, "a password given on stdin is not printed");
  assert.match(made.lines.join("\n"), /^ {2}hub_gateway --config /m);
  // Run as `node <folder>/dist/cli/hub_gateway.js`, init prints that (quoted for the shell), not a hub_gateway PATH may lack.
  const fromCopy = io();
  assert.equal(
    await run(
      [...base, "--user", "bo", "--config", join(dir, "copy.json"), "--app", join(dir, "app.mjs")],
      {},
      fromCopy,
      "/opt/hub mcp/dist/cli/hub_gateway.js",
    ),
    0,
  );
  assert.match(fromCopy.lines.join("\n"), /^ {2}node '\/opt\/hub mcp\/dist\/cli\/hub_gateway\.js' --config \S+copy\.json /m);
  assert.equal(JSON.parse(readFileSync(join(dir, "a.json"), "utf8")).tools.app.revisions.default.app, join(dir, "app.mjs"));

  const exists = io();
  assert.equal(await run([...base, "--config", join(dir, "a.json"), "--app", join(dir, "app.mjs")], {}, exists), 1);
  assert.match(exists.errors[0]!, /a\.json exists; init writes a new one/);
  const taken = io();
  assert.equal(await run([...base, "--config", join(dir, "b.json"), "--app", join(dir, "app.mjs")], {}, taken), 1);
  assert.match(taken.errors[0]!, /user ada already exists; give --user OTHER/);
  const missing = io();
  assert.equal(await run([...base, "--config", join(dir, "c.json"), "--app", join(dir, "nope.ts")], {}, missing), 2);
  assert.deepEqual(missing.errors, [`hub_gateway: the app ${join(dir, "nope.ts")} does not exist`]);
  assert.equal(await run([...base, "--config", join(dir, "c.json"), "--tool", "bad name"], {}, io()), 2);
  assert.equal(await run(["init", "extra"], {}, io()), 2);
  assert.equal(await run([...base, "--config", join(dir, "c.json"), "--port", "0"], {}, io()), 2);

  const open = join(dir, "open");
  mkdirSync(open, { mode: 0o755 });
  const shared = io();
  assert.equal(await run(["init", "--data-dir", open, "--config", join(dir, "d.json")], {}, shared), 2);
  assert.match(shared.errors[0]!, /open to other accounts \(mode 755\); run: chmod 700 /);
  writeFileSync(join(dir, "file"), "");
  assert.equal(await run(["init", "--data-dir", join(dir, "file"), "--config", join(dir, "d.json")], {}, io()), 2);
});
