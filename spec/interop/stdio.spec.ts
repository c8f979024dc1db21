// The official TypeScript SDK's client drives the demo through `start_mcp --stdio`, as a
// desktop assistant launches a local server: tools, structured output, elicitation,
// progress, an async job and a task, cancellation and logging, over stdin and stdout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

type Text = { type: string; text?: string };
const textOf = (result: object): string => ((result as { content?: Text[] }).content ?? []).map((b) => b.text ?? "").join("");

test("the official SDK client over stdio: the demo's tools, elicitation, progress, a job, a task, cancellation and logging", async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(ROOT, "cli", "start_mcp.ts"), "--app", join(ROOT, "fixtures", "demo", "app.ts"), "--stdio"],
    cwd: ROOT,
    env: { ...process.env } as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "sdk-interop", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  // Elicitation: answered at once, unless the test holds the answer to cancel the call.
  let held: { asked: () => void; withdrawn: () => void } | null = null;
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    if (!held) return { action: "accept", content: { name: "Ada" } };
    const { asked, withdrawn } = held;
    asked();
    // The server's notifications/cancelled for this request aborts the handler's signal.
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
    withdrawn();
    return { action: "cancel" };
  });
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  t.after(() => client.close());
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, "hubmcp-demo");

  await t.test("tools and structured output", async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    for (const name of ["add", "ask_user", "divide", "projectile", "slow_sum"]) assert.ok(names.includes(name), name);
    assert.equal(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })), "5");
    const divided = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
    assert.deepEqual([divided.isError, textOf(divided)], [true, "Cannot divide by zero"]);
    const projectile = await client.callTool({ name: "projectile", arguments: { speed: 10, angle: 45 } });
    assert.deepEqual(Object.keys(projectile.structuredContent ?? {}).sort(), ["flight_time_s", "max_height_m", "range_m"]);
  });

  await t.test("elicitation inside a call", async () => {
    assert.equal(textOf(await client.callTool({ name: "ask_user", arguments: {} })), "Hello, Ada!");
  });

  await t.test("logging: the level is set in the stdio session", async () => {
    await client.setLoggingLevel("debug");
    assert.deepEqual(logs, [], "the demo logs nothing by itself; the request was accepted");
  });

  await t.test("an async tool as a job: a handle at once, the result from get_job_result", async () => {
    const started = JSON.parse(textOf(await client.callTool({ name: "slow_sum", arguments: { values: "1,2,3", delay: 0 } })));
    assert.equal(started.status, "running");
    let status = started;
    while (status.status === "running") {
      status = JSON.parse(textOf(await client.callTool({ name: "get_job_result", arguments: { job_id: started.job_id } })));
    }
    assert.deepEqual(status, { status: "done", job_id: started.job_id, result: 6 });
  });

  await t.test("an async tool as a task, with progress on the call's token", async () => {
    const progress: number[] = [];
    let result: object | undefined;
    const stream = client.experimental.tasks.callToolStream({ name: "slow_sum", arguments: { values: "4,5,6", delay: 0 } }, CallToolResultSchema, {
      onprogress: (p) => void progress.push(p.progress),
    });
    for await (const message of stream) {
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    assert.equal(textOf(result!), "15");
    assert.deepEqual(progress, [1, 2, 3]);
  });

  await t.test("cancellation: aborting a call withdraws the question it was waiting on", async () => {
    let asked!: () => void;
    let withdrawn!: () => void;
    const questionOut = new Promise<void>((resolve) => (asked = resolve));
    const questionWithdrawn = new Promise<void>((resolve) => (withdrawn = resolve));
    held = { asked, withdrawn };
    const abort = new AbortController();
    const call = client.callTool({ name: "ask_user", arguments: {} }, undefined, { signal: abort.signal });
    await questionOut;
    abort.abort();
    await assert.rejects(call);
    await questionWithdrawn;
    held = null;
    assert.equal(textOf(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })), "2", "the session goes on");
  });

  assert.doesNotMatch(stderr, /Error|at .*\.ts:\d+/, "nothing failed on the server side");
});
