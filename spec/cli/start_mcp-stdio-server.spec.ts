// start_mcp --stdio-server: a real Python stdio server (the official `mcp` SDK, from the
// machine's package index) served over every hubmcp route, driven by the official TypeScript
// SDK client: tools with progress and logs, resources and templates, a prompt, elicitation,
// sampling, a list change, cancellation, a crash then recovery, REST, OpenAPI, legacy SSE,
// the 2026 revision, and the child stopping with start_mcp.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { alive, launcherEnv, ROOT, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";
import { fixturePython, STDIO_FIXTURE } from "../helpers/stdio-fixture.ts";

const LOCAL = ["--host", "127.0.0.1", "--port", "0"];

const text = (r: unknown): string => ((r as { content: Array<{ text?: string }> }).content[0]?.text ?? "") as string;

test("a Python stdio server over streamable HTTP: every feature relayed both ways", { timeout: 120_000 }, async (t) => {
  const python = await fixturePython(t);
  if (!python) return;
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--stdio-server", ...LOCAL, "--", python, STDIO_FIXTURE], launcherEnv(dir));
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)\n/);
  const client = new Client({ name: "stdio-server-spec", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Grace" } }));
  client.setRequestHandler(CreateMessageRequestSchema, (r) => ({
    role: "assistant",
    content: { type: "text", text: `short ${(r.params.messages[0]!.content as { text: string }).text}` },
    model: "spec-model",
  }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  let changed: () => void = () => {};
  const listChanged = new Promise<void>((done) => (changed = done));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}mcp`)));
  t.after(() => client.close());

  assert.equal(client.getServerVersion()?.name, "py-stdio-fixture");
  const tools = (await client.listTools()).tools;
  const add = tools.find((x) => x.name === "add")!;
  assert.equal(add.description, "Adds two integers.");
  assert.deepEqual(add.inputSchema.required, ["a", "b"]);
  const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.deepEqual(sum.structuredContent, { result: 5 });

  // Progress under the caller's own token, and the server's log lines, reach the caller.
  const progress: Array<[number, string | undefined]> = [];
  const counted = await client.callTool({ name: "count", arguments: { n: 3 } }, CallToolResultSchema, {
    onprogress: (p) => void progress.push([p.progress, p.message]),
  });
  assert.equal(text(counted), "counted to 3");
  assert.deepEqual(progress, [
    [1, "step 1"],
    [2, "step 2"],
    [3, "step 3"],
  ]);
  assert.deepEqual(logs, ["counted 1", "counted 2", "counted 3"]);

  const greeting = await client.readResource({ uri: "data://greeting" });
  assert.deepEqual(greeting.contents, [{ uri: "data://greeting", mimeType: "text/plain", text: "hello from python" }]);
  assert.deepEqual(
    (await client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate),
    ["data://items/{item}"],
  );
  assert.equal(((await client.readResource({ uri: "data://items/bolt" })).contents[0] as { text: string }).text, "item bolt");
  const prompt = await client.getPrompt({ name: "review", arguments: { code: "x = 1" } });
  assert.deepEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Please review: x = 1" } }]);

  // The server's questions go to the caller of the running call.
  assert.equal(text(await client.callTool({ name: "ask_name", arguments: {} })), "hello Grace");
  assert.equal(text(await client.callTool({ name: "summarize", arguments: { text: "a long text" } })), "model said: short a long text");

  // A list change in the server: read again, registered, announced.
  assert.equal(text(await client.callTool({ name: "grow", arguments: { name: "sprout" } })), "grown");
  await listChanged;
  assert.ok((await client.listTools()).tools.some((x) => x.name === "sprout"));
  assert.equal(text(await client.callTool({ name: "sprout", arguments: {} })), "grown sprout");

  // Cancelled by the client: the server's handler is cancelled too.
  const abort = new AbortController();
  const waiting = client.callTool({ name: "wait_forever", arguments: {} }, CallToolResultSchema, { signal: abort.signal, onprogress: () => abort.abort() });
  await assert.rejects(waiting);
  await cli.waitForErr(/\[stdio server\] wait_forever cancelled/);

  // A crash costs the call one clear error; the next call starts the server again, with the call's trace context.
  const crashed = await client.callTool({ name: "crash", arguments: {} });
  assert.equal(crashed.isError, true);
  assert.match(text(crashed), /^the stdio server exited \(code 3\)/);
  await cli.waitForErr(/stdio server: it exited with code 3; the next request starts it again/);
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const traced = await client.callTool({ name: "trace", arguments: {}, _meta: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
  assert.match(text(traced), new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  assert.deepEqual((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).structuredContent, { result: 2 });
  // The restarted server listed what it had before: nothing registered twice, nothing lost.
  assert.doesNotMatch(cli.stderr(), /not published/);
  // start_mcp's own lines never name the command (the server's own output is its business).
  const own = cli
    .stderr()
    .split("\n")
    .filter((line) => !line.startsWith("start_mcp: [stdio server]"));
  assert.ok(!own.some((line) => line.includes(STDIO_FIXTURE) || line.includes(python)));

  // Every pid the relay started is gone once start_mcp stops.
  const pids = [...cli.stderr().matchAll(/stdio server: started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  assert.equal(pids.length, 2);
  cli.child.kill("SIGTERM");
  assert.equal((await cli.exit).code, 0);
  assert.deepEqual(
    pids.filter((pid) => alive(pid)),
    [],
  );
});

test("the same server on REST, OpenAPI, legacy SSE and the 2026 revision", { timeout: 120_000 }, async (t) => {
  const python = await fixturePython(t);
  if (!python) return;
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--stdio-server", ...LOCAL, "--", python, STDIO_FIXTURE], launcherEnv(dir));
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)\n/);

  const rest = await fetch(`${url}tools/add`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":20,"b":22}' });
  assert.deepEqual(await rest.json(), { result: "42", structuredContent: { result: 42 } });
  const openapi = (await (await fetch(`${url}openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.ok(openapi.paths["/tools/add"]);

  const sse = new Client({ name: "stdio-server-sse", version: "1.0.0" });
  await sse.connect(new SSEClientTransport(new URL(`${url}sse`)));
  t.after(() => sse.close());
  assert.deepEqual((await sse.callTool({ name: "add", arguments: { a: 4, b: 5 } })).structuredContent, { result: 9 });

  const stateless = await fetch(`${url}mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "add",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "add",
        arguments: { a: 6, b: 7 },
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
      },
    }),
  });
  const answer = (await stateless.json()) as { result: { resultType: string; structuredContent: unknown } };
  assert.equal(answer.result.resultType, "complete");
  assert.deepEqual(answer.result.structuredContent, { result: 13 });
});

test("start_mcp --stdio --stdio-server: a desktop host reaches the stdio server through hubmcp", { timeout: 120_000 }, async (t) => {
  const python = await fixturePython(t);
  if (!python) return;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(ROOT, "cli", "start_mcp.ts"), "--stdio", "--stdio-server", "--", python, STDIO_FIXTURE],
    cwd: ROOT,
    env: { ...process.env } as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-desktop", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, "py-stdio-fixture");
  assert.deepEqual((await client.callTool({ name: "add", arguments: { a: 3, b: 4 } })).structuredContent, { result: 7 });
});

test("a stdio server that cannot start: one line, exit 1", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--stdio-server", ...LOCAL, "--", join(dir, "no-such-server"), "--secret-flag"], launcherEnv(dir));
  assert.equal((await cli.exit).code, 1);
  assert.match(cli.stderr(), /start_mcp: the stdio server did not start: the stdio server could not start\n/);
  assert.doesNotMatch(cli.stderr(), /secret-flag|no-such-server/);
});
