// The demo app driven by the official TypeScript SDK (v1) client, the way MCP hosts built on
// it talk to a server. One suite, run once per HTTP transport by the spec files beside it.
// Two probe tools are added to the demo for what it has no tool for: logging notifications
// and a call that waits until its cancellation signal fires.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type LoggingMessageNotification,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { server } from "../../fixtures/demo/app.ts";
import type { RunningServer, ToolContext } from "../../lib/index.ts";

export type HttpTransportKind = "streamable-http" | "sse";

/** Resolves once, from outside: how a probe tool tells the spec what happened inside it. */
function signal(): { promise: Promise<void>; fire(): void } {
  let fire = (): void => {};
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

const waiting = { started: signal(), aborted: signal() };
/** Opened by the spec once its client has seen every progress notification. */
let progressSeen = signal();

server.tool(
  async function interop_report({ steps }: { steps: number }, ctx: ToolContext): Promise<string> {
    /** Probe: one log message and one progress notification per step. */
    for (let i = 1; i <= steps; i++) {
      ctx.info({ step: i }, "interop");
      ctx.reportProgress(i, steps, `step ${i}`);
    }
    // The SDK client handles notifications a microtask later than responses; a response
    // parsed from the same network chunk as the progress before it unregisters the progress
    // handler first (its legacy SSE reader dispatches a whole chunk at once). Answering only
    // once the client has the progress keeps this spec about the server.
    await progressSeen.promise;
    return `${steps} steps`;
  },
  { inputSchema: { type: "object", properties: { steps: { type: "integer", minimum: 1 } }, required: ["steps"] }, context: true },
);

server.tool(
  async function interop_wait(_args: Record<string, never>, ctx: ToolContext): Promise<string> {
    /** Probe: waits until the call is cancelled. */
    waiting.started.fire();
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    waiting.aborted.fire();
    return "cancelled";
  },
  { inputSchema: { type: "object", properties: {} }, context: true },
);

interface Connected {
  client: Client;
  logs: LoggingMessageNotification["params"][];
  elicitations: ElicitRequest["params"][];
}

/** How the SDK client answers the demo's question. */
type Answer = { action: "accept"; content: { name: string } } | { action: "decline" } | { action: "cancel" };

function transportFor(kind: HttpTransportKind, base: string): Transport {
  return kind === "sse" ? new SSEClientTransport(new URL("sse", base)) : new StreamableHTTPClientTransport(new URL("mcp", base));
}

/** The text of a tool result's first content block. */
function text(result: unknown): string {
  const first = (result as CallToolResult).content[0];
  assert.equal(first?.type, "text");
  return (first as { text: string }).text;
}

export function sdkInteropSuite(kind: HttpTransportKind): void {
  let running: RunningServer;
  before(async () => {
    running = await server.listen({ port: 0 });
  });
  after(() => running.close());

  async function connect(t: { after(fn: () => Promise<void>): void }, answer: Answer = { action: "accept", content: { name: "Ada" } }): Promise<Connected> {
    const client = new Client(
      { name: "hubmcp-interop", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {}, requests: {} } } },
    );
    const connected: Connected = { client, logs: [], elicitations: [] };
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      connected.elicitations.push(request.params);
      return answer;
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      connected.logs.push(n.params);
    });
    await client.connect(transportFor(kind, running.url));
    t.after(() => client.close());
    return connected;
  }

  test(`${kind}: initialize and tools/list through the SDK`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    assert.equal(client.getServerVersion()?.name, "hubmcp-demo");
    assert.ok(client.getServerCapabilities()?.tools);
    assert.match(client.getInstructions() ?? "", /arithmetic and physics/);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ["add", "divide", "projectile", "slow_sum", "get_job_result", "ask_user"]) assert.ok(names.includes(name), name);
    const add = tools.find((tool) => tool.name === "add")!;
    assert.deepEqual(add.inputSchema.required, ["a", "b"]);
    assert.equal(add.annotations?.readOnlyHint, true);
    assert.equal(tools.find((tool) => tool.name === "slow_sum")!.execution?.taskSupport, "optional");
  });

  test(`${kind}: tool calls, tool errors and invalid arguments`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    assert.equal(text(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })), "5");
    const zero = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
    assert.equal(zero.isError, true);
    assert.equal(text(zero), "Cannot divide by zero");
    const bad = await client.callTool({ name: "add", arguments: { a: "six", b: 1 } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /\/a/);
  });

  test(`${kind}: structured output is checked by the SDK against the outputSchema`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.find((tool) => tool.name === "projectile")!.outputSchema?.required, ["range_m", "flight_time_s", "max_height_m"]);
    // After tools/list the SDK holds a validator per output schema and rejects a call whose
    // structuredContent is missing or does not match it.
    const flight = await client.callTool({ name: "projectile", arguments: { speed: 20, angle: 45 } });
    assert.deepEqual(flight.structuredContent, { range_m: 40.775, flight_time_s: 2.883, max_height_m: 10.194 });
    assert.deepEqual(JSON.parse(text(flight)), flight.structuredContent);
  });

  test(`${kind}: elicitation: the client declares the capability and answers`, { timeout: 20_000 }, async (t) => {
    const { client, elicitations } = await connect(t);
    assert.equal(text(await client.callTool({ name: "ask_user", arguments: { timeout: 30 } })), "Hello, Ada!");
    assert.equal(elicitations.length, 1);
    assert.equal(elicitations[0]!.message, "What is your name?");
    assert.deepEqual((elicitations[0] as { requestedSchema: { required: string[] } }).requestedSchema.required, ["name"]);
    const declining = await connect(t, { action: "decline" });
    assert.equal(text(await declining.client.callTool({ name: "ask_user", arguments: { timeout: 30 } })), "You declined to give your name.");
  });

  test(`${kind}: progress (onprogress) and logging notifications during a call`, { timeout: 20_000 }, async (t) => {
    const { client, logs } = await connect(t);
    await client.setLoggingLevel("debug");
    const progress: Progress[] = [];
    progressSeen = signal();
    const onprogress = (p: Progress): void => {
      if (progress.push(p) === 3) progressSeen.fire();
    };
    const result = await client.callTool({ name: "interop_report", arguments: { steps: 3 } }, CallToolResultSchema, { onprogress });
    assert.equal(text(result), "3 steps");
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total, p.message]),
      [
        [1, 3, "step 1"],
        [2, 3, "step 2"],
        [3, 3, "step 3"],
      ],
    );
    assert.deepEqual(
      logs.map((l) => [l.level, l.logger, l.data]),
      [1, 2, 3].map((step) => ["info", "interop", { step }]),
    );
  });

  test(`${kind}: an async job: slow_sum answers a handle, get_job_result the sum`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    const handle = JSON.parse(text(await client.callTool({ name: "slow_sum", arguments: { values: "1,2,3,4", delay: 0 } }))) as {
      status: string;
      job_id: string;
    };
    assert.equal(handle.status, "running");
    // The job finishes within a few event-loop turns of the server; each poll is a round trip.
    let status: { status: string; result?: unknown } = handle;
    for (let polls = 0; status.status === "running" && polls < 500; polls++) {
      status = JSON.parse(text(await client.callTool({ name: "get_job_result", arguments: { job_id: handle.job_id } })));
    }
    assert.deepEqual(status, { status: "done", job_id: handle.job_id, result: 10 });
  });

  test(`${kind}: a task through the SDK's experimental tasks API, with progress; a long one cancelled`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    await client.listTools();
    const kinds: string[] = [];
    const progress: number[] = [];
    let result: CallToolResult | undefined;
    const stream = client.experimental.tasks.callToolStream({ name: "slow_sum", arguments: { values: "1,2,3", delay: 0 } }, CallToolResultSchema, {
      task: {},
      onprogress: (p) => progress.push(p.progress),
    });
    for await (const message of stream) {
      kinds.push(message.type);
      if (message.type === "error") throw message.error;
      if (message.type === "result") result = message.result as CallToolResult;
    }
    assert.equal(kinds[0], "taskCreated");
    assert.equal(kinds.at(-1), "result");
    assert.equal(text(result), "6");
    assert.deepEqual(progress, [1, 2, 3]);

    const long = client.experimental.tasks.callToolStream({ name: "slow_sum", arguments: { delay: 600 } }, CallToolResultSchema, { task: {} });
    const first = await long.next();
    assert.equal(first.value?.type, "taskCreated");
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, "working");
    const listed = await client.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((task) => task.taskId === taskId));
    await client.experimental.tasks.cancelTask(taskId);
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, "cancelled");
    await long.return();
  });

  test(`${kind}: cancellation: aborting callTool fires the handler's signal`, { timeout: 20_000 }, async (t) => {
    const { client } = await connect(t);
    const abort = new AbortController();
    const call = client.callTool({ name: "interop_wait", arguments: {} }, CallToolResultSchema, { signal: abort.signal });
    await waiting.started.promise;
    abort.abort("the user pressed stop");
    await assert.rejects(call);
    await waiting.aborted.promise;
    // The session still serves calls after a cancellation.
    assert.equal(text(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })), "2");
  });
}
