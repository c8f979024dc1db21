// The stdio relay in process, against a hand-written stdio server (fixtures/stdio-server/
// scripted.mjs) that does what well-behaved SDK servers rarely do: paged lists, entries that
// cannot be registered, a changing catalogue, requests and notifications outside any call, a
// request it cancels, JSON-RPC errors, crashes, and noise on stdout and stderr. Driven by the
// official SDK client over HTTP; the supervisor's backoff and bounds are checked here too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { relayStdioServer } from "../../lib/stdio-server/relay.ts";
import { ROOT } from "../helpers/launcher-fixtures.ts";

const SCRIPTED = join(ROOT, "fixtures/stdio-server/scripted.mjs");
const text = (r: unknown): string => (r as { content: Array<{ text?: string }> }).content[0]?.text ?? "";
const NO_COVERAGE = { ...process.env, NODE_V8_COVERAGE: "" };

function relay(t: { after(fn: () => unknown): void }, env: NodeJS.ProcessEnv = NO_COVERAGE, backoff?: { firstMs: number; maxMs: number; stableMs: number }) {
  const logs: string[] = [];
  const started = relayStdioServer({ command: process.execPath, args: [SCRIPTED], env, log: (line) => void logs.push(line), ...(backoff ? { backoff } : {}) });
  t.after(async () => (await started.catch(() => null))?.close());
  return { started, logs };
}

test("a hand-written stdio server: lists, questions, errors, changes and noise", { timeout: 60_000 }, async (t) => {
  const { started, logs } = relay(t, { ...NO_COVERAGE, NOISY: "1" });
  const { server } = await started;
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());

  const client = new Client({ name: "relay-spec", version: "1.0.0" }, { capabilities: { roots: {}, elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///data" }] }));
  let elicited: () => void = () => {};
  const formAsked = new Promise<void>((done) => (elicited = done));
  client.setRequestHandler(ElicitRequestSchema, (r) => {
    if (r.params.mode === "url") return { action: "accept" };
    elicited();
    return { action: "decline" };
  });
  const logged: Array<{ level: string; logger?: string; data: unknown }> = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params));
  let toolsChanged: () => void = () => {};
  const changed = new Promise<void>((done) => (toolsChanged = done));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => toolsChanged());
  let resourceUpdated: (uri: string) => void = () => {};
  const updated = new Promise<string>((done) => (resourceUpdated = done));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resourceUpdated(n.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}mcp`)));
  t.after(() => client.close());

  // A server with no name gets one; its version and instructions pass through.
  assert.deepEqual([server.name, server.version], ["stdio-server", "2.0"]);
  assert.equal(client.getInstructions(), "Be kind.");
  // Both pages listed; a tool whose name hubmcp refuses is left out, with one line saying so.
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.deepEqual(names, ["echo", "ask", "fail", "die", "killme", "change", "cancelme", "answers"]);
  assert.ok(logs.some((l) => /^stdio server: tool not a name! not published: /.test(l)));
  // Its stdout noise is skipped; its stderr is the log, each line and each run bounded.
  assert.ok(logs.includes("stdio server: it wrote a line that is not JSON on stdout; skipped"));
  assert.ok(logs.includes(`[stdio server] ${"x".repeat(2000)}…`));
  assert.ok(logs.includes("[stdio server] line 9998"));
  assert.ok(!logs.includes("[stdio server] line 9999"));
  assert.ok(logs.includes("[stdio server] (more than 10000 lines of output in this run: the rest is not logged)"));

  assert.equal(text(await client.callTool({ name: "echo", arguments: { a: 1 } })), '{"a":1}');
  const progress: number[] = [];
  const asked = await client.callTool({ name: "ask", arguments: {} }, CallToolResultSchema, { onprogress: (p) => void progress.push(p.progress) });
  const answers = JSON.parse(text(asked)) as { roots: unknown; url: unknown; refused: { code: number } };
  assert.deepEqual(answers.roots, { roots: [{ uri: "file:///data" }] });
  assert.deepEqual(answers.url, { action: "accept", elicitationId: "e1" });
  assert.equal(typeof answers.refused.code, "number", "a client without sampling: the server hears an error");
  assert.deepEqual(progress, [1], "only the call's own token");
  assert.deepEqual(logged, [{ level: "info", logger: "scripted", data: "from ask" }], "an unknown level is info; the idle log line reached nobody");

  const failed = await client.callTool({ name: "fail", arguments: {} });
  assert.equal(failed.isError, true);
  assert.equal(text(failed), "bad arguments for fail");

  const blob = await client.readResource({ uri: "mem://blob" });
  assert.deepEqual(blob.contents, [{ uri: "mem://blob", mimeType: "application/octet-stream", blob: "AQID" }]);
  assert.equal(((await client.readResource({ uri: "mem://t/x" })).contents[0] as { text: string }).text, "");
  assert.equal(((await client.getPrompt({ name: "p", arguments: { who: "Ann" } })).messages[0]!.content as { text: string }).text, "hi Ann");
  const completed = await client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "who", value: "a" } });
  assert.deepEqual(completed.completion.values, ["alpha", "beta"]);
  const templated = await client.complete({ ref: { type: "ref/resource", uri: "mem://t/{id}" }, argument: { name: "id", value: "" } });
  assert.deepEqual(templated.completion.values, ["alpha", "beta"]);

  await client.subscribeResource({ uri: "mem://blob" });
  assert.equal(text(await client.callTool({ name: "change", arguments: {} })), "changed");
  await changed;
  assert.equal(await updated, "mem://blob");
  const after = (await client.listTools()).tools;
  assert.ok(!after.some((x) => x.name === "ask"), "a tool the server dropped is dropped");
  assert.equal(after.find((x) => x.name === "echo")?.description, "Echoes, changed");

  // A request the server cancelled is not answered, even once the client answers it.
  const cancelled = Number(/asked (\d+)/.exec(text(await client.callTool({ name: "cancelme", arguments: {} })))![1]);
  await formAsked;
  await client.ping();
  const got = JSON.parse(text(await client.callTool({ name: "answers", arguments: {} }))) as Array<{ id: number; error?: number }>;
  assert.ok(!got.some((a) => a.id === cancelled), JSON.stringify(got));
  // Outside any call: elicitation refused, ping answered, an unknown method not found.
  assert.deepEqual(got.slice(0, 3), [{ id: 1000, error: -32600 }, { id: 1001 }, { id: 1002, error: -32601 }]);

  // A call cut by a signal: one error, the log says how.
  const killed = await client.callTool({ name: "killme", arguments: {} });
  assert.match(text(killed), /^the stdio server exited \(killed by a signal\)/);
  assert.ok(logs.includes("stdio server: it was killed by a signal; the next request starts it again"));
  assert.equal(text(await client.callTool({ name: "echo", arguments: { b: 2 } })), '{"b":2}');
});

test("a server that keeps crashing is started again only after a growing wait; one that stays up is not held back", { timeout: 60_000 }, async (t) => {
  const { started, logs } = relay(t, NO_COVERAGE, { firstMs: 60_000, maxMs: 60_000, stableMs: 60_000 });
  const { server, close } = await started;
  const call = async (name: string) =>
    ((await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } })) as { result: unknown }).result;
  assert.match(text(await call("die")), /^the stdio server exited \(code 5\)/);
  assert.match(text(await call("die")), /^the stdio server exited \(code 5\)/, "the first crash: started again at once");
  assert.ok(logs.includes("stdio server: it exited with code 5; the next start waits 60 s"));
  assert.ok(logs.includes("[stdio server] no newline at the end"), "the last partial line is logged at exit");
  const held = (await call("echo")) as { isError: boolean };
  assert.equal(held.isError, true);
  assert.match(text(held), /^the stdio server crashed 2 times in a row; it is started again in 60 s$/);
  await close();
  assert.match(text(await call("echo")), /^the stdio server has stopped$/);

  const steady = relay(t, NO_COVERAGE, { firstMs: 60_000, maxMs: 60_000, stableMs: 0 });
  const again = await steady.started;
  for (let i = 0; i < 3; i++) await again.server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "die", arguments: {} } });
  const ok = (await again.server.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { c: 3 } } })) as { result: unknown };
  assert.equal(text(ok.result), '{"c":3}');
});

test("a server that refuses to initialise: its error, and its process stopped", { timeout: 30_000 }, async (t) => {
  const { started, logs } = relay(t, { ...NO_COVERAGE, MODE: "badinit" });
  await assert.rejects(started, { code: -32600, message: "not today" });
  // Stopped, not left running: stdin closed (it exits) or the group signalled.
  const exited = logs.find((l) => /^stdio server: it (exited|was killed)/.test(l));
  assert.ok(exited === undefined || /; the next request starts it again$/.test(exited), exited);
});
