// Two `hub_gateway` processes on one data dir, as replicas behind one public URL: a client
// registered and signed in through one is served by the other, and a revocation through
// one is honoured by the other at once.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { obtainTokens } from "./harness.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { freePort } from "../../helpers/launcher-fixtures.ts";
import { stateRootFor } from "../helpers.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "cli", "hub_gateway.ts");
// These processes run without coverage: the same files are covered in-process, and merging
// coverage of processes that load them through other transpilers skews the report.
const env = { ...process.env, NODE_V8_COVERAGE: "" };

function run(args: string[], input?: string): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], { cwd: root, env, stdio: ["pipe", "ignore", "ignore"] });
  child.stdin.end(input ?? "");
  return new Promise((resolve) => child.once("exit", resolve));
}

async function serve(t: TestContext, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], { cwd: root, env, stdio: ["ignore", "pipe", "ignore"] });
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready at")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`hub_gateway exited with ${code} before it was ready`)));
  });
  return child;
}

async function initialize(base: string, accessToken: string): Promise<number> {
  const res = await fetch(`${base}/api/mcp/mcpdemo/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } },
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

test("two hub_gateway processes on one data dir share clients, grants and revocations", { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "hub-replicas-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${portA}`;
  const config = join(dir, "gateway.json");
  await writeFile(config, JSON.stringify({ publicUrl, tools: { mcpdemo: { revisions: { default: { app: join(root, "fixtures", "demo", "app.ts") } } } } }));
  const data = join(dir, "data");
  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", "--data-dir", data], "correct horse\n"), 0);
  await stateRootFor(t, new FileRecordStore(data));
  await serve(t, ["--config", config, "--data-dir", data, "--port", String(portA)]);
  await serve(t, ["--config", config, "--data-dir", data, "--port", String(portB)]);

  const { clientId, tokens } = await obtainTokens(publicUrl, `${publicUrl}/api/mcp/mcpdemo/mcp`);
  assert.equal(await initialize(`http://127.0.0.1:${portB}`, tokens.access_token), 200);
  const revoked = await fetch(`${publicUrl}/developer/oauth/revoke`, {
    method: "POST",
    body: new URLSearchParams({ client_id: clientId, token: tokens.refresh_token }),
  });
  assert.equal(revoked.status, 200);
  await revoked.arrayBuffer();
  assert.equal(await initialize(`http://127.0.0.1:${portB}`, tokens.access_token), 401);
});
