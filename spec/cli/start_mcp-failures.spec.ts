// A handler that throws is visible to the operator: start_mcp logs one line on stderr per
// failure naming the handler and the message (the stack only with --debug), never the
// arguments, while the client gets the fixed text the README names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { launcherEnv, rpcAt, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

const SECRET = "s3cr3t-argument";

const FAILING = `
server.tool(function explode(value) { throw new Error("disk full"); }, { inputSchema: { type: "object", properties: { value: { type: "string" } } } });
server.asyncTool(async function later(value) { throw new Error("cluster gone"); }, { inputSchema: { type: "object", properties: { value: { type: "string" } } } });
server.resource("data://broken", () => { throw new Error("no such table"); });
server.resource("data://runs/{id}", ({ id }) => { throw new Error("run store offline"); });
server.prompt(function brief(topic) { throw new Error("template missing"); }, {
  complete: { topic: () => { throw new Error("index corrupt\\nsecond line"); } },
});
`;

async function failEverything(url: string): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  seen.tool = (await rpcAt(url, "tools/call", { name: "explode", arguments: { value: SECRET } })).result;
  seen.rest = await (await fetch(`${url}tools/later`, { method: "POST", body: JSON.stringify({ value: SECRET }) })).json();
  seen.resource = (await rpcAt(url, "resources/read", { uri: "data://broken" })).error;
  seen.template = (await rpcAt(url, "resources/read", { uri: `data://runs/${SECRET}` })).error;
  seen.prompt = (await rpcAt(url, "prompts/get", { name: "brief", arguments: { topic: SECRET } })).error;
  seen.completion = (await rpcAt(url, "completion/complete", { ref: { type: "ref/prompt", name: "brief" }, argument: { name: "topic", value: SECRET } })).error;
  return seen;
}

const LINES = [
  "start_mcp: tool handler failed: explode: disk full",
  "start_mcp: tool handler failed: later: cluster gone",
  "start_mcp: resource handler failed: data://broken: no such table",
  "start_mcp: resource handler failed: data://runs/{id}: run store offline",
  "start_mcp: prompt handler failed: brief: template missing",
  "start_mcp: completion handler failed: prompt brief, argument topic: index corrupt second line",
];

test("every handler failure is one stderr line (handler, message), never the arguments; the client gets the README's words", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--app", writeApp(dir, "app.mjs", FAILING), "--host", "127.0.0.1", "--port", "0"], launcherEnv(join(dir, "cache")));
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  const seen = await failEverything(url!);
  assert.deepEqual(seen.tool, { content: [{ type: "text", text: "disk full" }], isError: true });
  assert.deepEqual(seen.rest, { error: "cluster gone" });
  assert.deepEqual(seen.resource, { code: -32603, message: "Resource handler failed" });
  assert.deepEqual(seen.template, { code: -32603, message: "Resource handler failed" });
  assert.deepEqual(seen.prompt, { code: -32603, message: "Prompt handler failed" });
  assert.deepEqual(seen.completion, { code: -32603, message: "Completion failed" });
  await cli.waitForErr(/completion handler failed.*\n/);
  const logged = cli
    .stderr()
    .split("\n")
    .filter((l) => l.includes("handler failed"));
  assert.deepEqual(logged.sort(), [...LINES].sort());
  assert.doesNotMatch(cli.stderr(), new RegExp(SECRET), "arguments never reach the log");
  assert.doesNotMatch(cli.stderr(), /^\s+at /m, "no stack without --debug");
});

test("--debug adds each failure's stack under its line", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--app", writeApp(dir, "app.mjs", FAILING), "--host", "127.0.0.1", "--port", "0", "--debug"], launcherEnv(join(dir, "cache")));
  const [, url] = await cli.waitFor(/ready at (\S+)\n/);
  await rpcAt(url!, "tools/call", { name: "explode", arguments: { value: SECRET } });
  const [block] = await cli.waitForErr(/start_mcp: tool handler failed: explode: disk full\n(?: {4}at .*\n)+/);
  assert.match(block, /app\.mjs:\d+:\d+/, "the stack points into the app");
  assert.doesNotMatch(cli.stderr(), new RegExp(SECRET));
});
