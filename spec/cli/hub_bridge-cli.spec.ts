// hub_bridge as a process: configuration errors, usage, and the raw stdio framing
// (what a host that is not the SDK would see).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createProxyHandler } from "../../lib/proxy/reverse-proxy.ts";
import { server as demo } from "../../fixtures/demo/app.ts";
import { serveApps, type StandIn } from "../bridge/stand-in-gateway.ts";
import { BRIDGE_CLI, bridgeEnv, spawnBridge } from "../bridge/bridge-client.ts";
import { main } from "../../cli/hub_bridge.ts";

let hub: StandIn;
const cleanups: Array<() => unknown> = [];
before(async () => {
  hub = await serveApps({ after: (fn) => void cleanups.push(fn) }, { mcpdemo: demo });
});
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

const env = (tools: string) => ({ HUB_TOKEN: hub.token, HUB_API: hub.url, HUB_TOOLS: tools });

test("main is exported and does not run on import", () => {
  assert.equal(typeof main, "function");
});

test("without HUB_TOKEN: one line on stderr, exit 2, nothing on stdout", { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, ["--import", "tsx", BRIDGE_CLI], { env: bridgeEnv({ HUB_TOKEN: undefined }), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c));
  child.stderr.on("data", (c: Buffer) => (err += c));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  assert.equal(code, 2);
  assert.equal(out, "");
  assert.match(err, /^hub_bridge: HUB_TOKEN is not set[^\n]*\n$/);
});

test("--help goes to stderr with exit 0; arguments are refused with exit 2; stdout stays empty", { timeout: 30_000 }, async () => {
  for (const [args, code, pattern] of [
    [["--help"], 0, /^usage: hub_bridge\n/],
    [["--port", "1"], 2, /^hub_bridge: takes no arguments/],
  ] as const) {
    const child = spawn(process.execPath, ["--import", "tsx", BRIDGE_CLI, ...args], { env: bridgeEnv({ HUB_TOKEN: "t" }), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    child.stderr.on("data", (c: Buffer) => (err += c));
    assert.equal(await new Promise<number | null>((done) => child.on("close", done)), code);
    assert.equal(out, "");
    assert.match(err, pattern);
  }
});

test("raw stdio: a line that is not JSON gets a parse error, a batch is answered per entry, closing stdin exits 0", { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, ["--import", "tsx", BRIDGE_CLI], { env: bridgeEnv(env("mcpdemo")), stdio: ["pipe", "pipe", "pipe"] });
  const lines: Array<Record<string, unknown>> = [];
  let buffered = "";
  let wake: () => void = () => {};
  child.stdout.on("data", (c: Buffer) => {
    buffered += c;
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
    wake();
  });
  const until = async (n: number): Promise<void> => {
    while (lines.length < n) await new Promise<void>((done) => (wake = done));
  };
  child.stdin.write("this is not json\n");
  await until(1);
  assert.deepEqual(lines[0], { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  child.stdin.write(
    `${JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ])}\n`,
  );
  await until(3);
  assert.deepEqual(
    lines
      .slice(1)
      .map((l) => l.id)
      .sort(),
    [1, 2],
  );
  child.stdin.end();
  assert.equal(await new Promise<number | null>((done) => child.on("close", done)), 0);
});

test("stdin closed right after the requests: every request read is still answered, then exit 0", { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, ["--import", "tsx", BRIDGE_CLI], { env: bridgeEnv(env("mcpdemo")), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c));
  const requests = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } },
  ];
  child.stdin.end(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
  assert.equal(await new Promise<number | null>((done) => child.on("close", done)), 0);
  const answers = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: number; result?: { content?: { text: string }[] } });
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3]);
  assert.equal(answers.find((a) => a.id === 3)!.result!.content![0]!.text, "5");
});

test("an https HUB_API works (the certificate trusted through NODE_EXTRA_CA_CERTS)", { timeout: 30_000 }, async (t) => {
  const tls = (name: string): string => fileURLToPath(new URL(`../../fixtures/bridge/tls/${name}`, import.meta.url));
  const front = createHttpsServer({ key: readFileSync(tls("key.pem")), cert: readFileSync(tls("cert.pem")) }, createProxyHandler({ target: hub.url }));
  await new Promise<void>((done) => front.listen(0, "127.0.0.1", done));
  t.after(() => new Promise<void>((done) => (front.closeAllConnections(), front.close(() => done()))));
  const url = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const bridge = spawnBridge(t, { ...env("mcpdemo"), HUB_API: url, NODE_EXTRA_CA_CERTS: tls("cert.pem") });
  await bridge.client.connect(bridge.transport);
  const sum = await bridge.client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
  assert.deepEqual(sum.content, [{ type: "text", text: "42" }]);
});
