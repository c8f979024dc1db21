// A `stdio` revision through a real gateway: the Python stdio server (official `mcp` SDK) as
// each person's tool session under start_mcp --stdio-server, driven by the official SDK
// client on the per-tool route and at /mcp; its session ends with the child's process group.
// And the revision as gateway.json states it: parsing and the program check at start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { checkAppFiles, parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { launchBackend, type Backend, type LaunchRequest } from "../../lib/gateway/backends/index.ts";
import { alive, tempDir } from "../helpers/launcher-fixtures.ts";
import { fixturePython, STDIO_FIXTURE } from "../helpers/stdio-fixture.ts";
import { startHarness } from "./helpers.ts";

// The children run without coverage: merged coverage of differently compiled copies is skewed.
const CHILD_ENV = { ...process.env, NODE_V8_COVERAGE: "" };

async function sdkClient(t: { after(fn: () => unknown): void }, url: string, token: string, client = new Client({ name: "stdio-gw", version: "1.0.0" })) {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  t.after(() => client.close());
  return client;
}

const text = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

test("a stdio revision: the Python server per person, on the per-tool route and at /mcp", { timeout: 120_000 }, async (t) => {
  const python = await fixturePython(t);
  if (!python) return;
  const backends: Backend[] = [];
  const launch = async (req: LaunchRequest) => {
    const backend = await launchBackend(req);
    backends.push(backend);
    return backend;
  };
  // The venv is in root's private cache, which the default account of a root gateway (nobody) cannot reach.
  const runAs = process.getuid?.() === 0 ? { runAs: "root" } : {};
  const config = { ...runAs, tools: { py: { revisions: { default: { stdio: [python, STDIO_FIXTURE] } } } } };
  const h = await startHarness(t, config, { childEnv: CHILD_ENV, launch });

  const asker = new Client({ name: "stdio-gw", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  asker.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Ada" } }));
  const own = await sdkClient(t, `${h.base}/api/mcp/py/mcp`, h.tokens.alice, asker).catch((err) => {
    throw new Error(`${err}\n${h.logs.join("\n")}`);
  });
  assert.equal(own.getServerVersion()?.name, "py-stdio-fixture");
  assert.ok((await own.listTools()).tools.some((x) => x.name === "count"));
  assert.deepEqual((await own.callTool({ name: "add", arguments: { a: 2, b: 40 } })).structuredContent, { result: 42 });
  const progress: number[] = [];
  const counted = await own.callTool({ name: "count", arguments: { n: 2 } }, CallToolResultSchema, { onprogress: (p) => void progress.push(p.progress) });
  assert.equal(text(counted), "counted to 2");
  assert.deepEqual(progress, [1, 2]);
  assert.equal(text(await own.callTool({ name: "ask_name", arguments: {} })), "hello Ada");
  assert.equal(((await own.readResource({ uri: "data://greeting" })).contents[0] as { text: string }).text, "hello from python");

  // At /mcp: the same person's tool session, under the tool's prefix.
  const hub = await sdkClient(t, `${h.base}/mcp`, h.tokens.alice);
  const names = (await hub.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes("py_add"), names.join(","));
  assert.deepEqual((await hub.callTool({ name: "py_add", arguments: { a: 1, b: 2 } })).structuredContent, { result: 3 });
  assert.equal(backends.length, 1, "one tool session for the person, shared by both routes");

  // The session's process group holds the stdio server: stopping the session stops it.
  const started = await h.waitForLog(/stdio server: started \(pid (\d+)\)/);
  const pid = Number(/pid (\d+)/.exec(started)![1]);
  assert.ok(alive(pid));
  await backends[0]!.stop();
  assert.equal(alive(pid), false);
});

test("gateway.json: a stdio revision is a non-empty command; a program given as a path is checked at start", async (t) => {
  const dir = tempDir(t);
  const parse = (stdio: unknown, extra: Record<string, unknown> = {}) =>
    parseGatewayConfig({ tools: { py: { revisions: { default: { stdio, ...extra } } } } }, dir).tools.py!.revisions.default!;
  assert.deepEqual(parse(["python", "server.py"]), { kind: "stdio", stdio: ["python", "server.py"], cwd: dir });
  assert.deepEqual(parse(["bin/server", "--flag"]), { kind: "stdio", stdio: [join(dir, "bin/server"), "--flag"], cwd: dir });
  // Shared by everyone, the server's questions and logs (which name no call) could reach another person.
  assert.throws(() => parse(["python"], { isolation: "shared" }), /tools\.py\.revisions\.default\.isolation cannot be "shared" for a stdio server/);
  assert.equal((parse(["python"], { isolation: "process" }) as { isolation?: string }).isolation, undefined);
  for (const bad of ["python server.py", [], [""], [1], ["python", "a\0b"]]) {
    assert.throws(() => parse(bad), /tools\.py\.revisions\.default\.stdio must be a non-empty array of strings/);
  }
  assert.throws(() => parse(["python"], { app: "x.mjs" }), /must have exactly one of/);
  assert.throws(() => parse(["python"], { frobnicate: 1 }), /tools\.py\.revisions\.default\.frobnicate is not a known key/);

  const check = (stdio: string[]) => checkAppFiles(parseGatewayConfig({ tools: { py: { revisions: { default: { stdio } } } } }, dir));
  await check(["python3", "server.py"]);
  await assert.rejects(check(["./missing"]), /tools\.py\.revisions\.default\.stdio names the program .*missing, which does not exist/);
  mkdirSync(join(dir, "folder"));
  await assert.rejects(check(["./folder"]), /which is not a file/);
  const open = join(dir, "open");
  mkdirSync(open);
  writeFileSync(join(open, "server"), "#!/bin/sh\n");
  chmodSync(open, 0o777);
  await assert.rejects(check([join(open, "server")]), /which or whose folder every account may write/);
  chmodSync(open, 0o755);
  await check([join(open, "server")]);
});
