// MCP's stdio transport over in-memory pipes: one JSON-RPC message per line each way,
// with server-to-client requests, progress, logging and cancellation in one session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { McpServer, type ToolContext, type StdioServer } from "../../lib/index.ts";

type Message = Record<string, any>;

/** A client end of the pipes: writes lines, reads every line the server writes. */
function pipes(t: { after(fn: () => unknown): void }, server: McpServer, options: { maxLineBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const raw: string[] = [];
  const seen: Message[] = [];
  const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  let buffer = "";
  output.setEncoding("utf8");
  output.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      raw.push(line);
      const parsed = JSON.parse(line) as Message | Message[];
      const message: Message = Array.isArray(parsed) ? { batch: parsed } : parsed;
      seen.push(message);
      const i = waiters.findIndex((w) => w.match(message));
      if (i !== -1) waiters.splice(i, 1)[0]!.resolve(message);
    }
  });
  const served: StdioServer = server.serveStdio({ input, output, ...options });
  t.after(() => served.close());
  const next = (match: (m: Message) => boolean): Promise<Message> => {
    const found = seen.find(match);
    if (found) {
      seen.splice(seen.indexOf(found), 1);
      return Promise.resolve(found);
    }
    return new Promise((resolve) =>
      waiters.push({
        match,
        resolve: (m) => {
          seen.splice(seen.indexOf(m), 1);
          resolve(m);
        },
      }),
    );
  };
  return {
    served,
    input,
    raw,
    send: (message: unknown) => input.write(`${JSON.stringify(message)}\n`),
    response: (id: number | string) => next((m) => m.id === id && !("method" in m)),
    notification: (method: string) => next((m) => m.method === method && !("id" in m)),
    request: (method: string) => next((m) => m.method === method && "id" in m),
    batch: () => next((m) => "batch" in m),
  };
}

const INIT = (capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "spec", version: "1" } },
});

function fixture(): McpServer {
  const server = new McpServer("stdio-spec");
  server.tool(
    function add({ a, b }: { a: number; b: number }) {
      return a + b;
    },
    { inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
  );
  server.tool(
    async function ask(_args: Record<string, never>, ctx: ToolContext) {
      ctx.info("asking");
      ctx.reportProgress(1, 2, "half");
      const answer = await ctx.elicit<{ name: string }>("Name?", { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
      return answer.action === "accept" ? `hi ${answer.content.name}` : answer.action;
    },
    { inputSchema: { type: "object" }, context: true },
  );
  server.tool(
    async function wait(_args: Record<string, never>, ctx: ToolContext) {
      await new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
      return "never";
    },
    { inputSchema: { type: "object" }, context: true },
  );
  return server;
}

test("stdio: initialize, a call, logging, progress and an elicitation answered on stdin", async (t) => {
  const client = pipes(t, fixture());
  client.send(INIT({ elicitation: {} }));
  const init = await client.response(0);
  assert.equal(init.result.serverInfo.name, "stdio-spec");
  client.send({ jsonrpc: "2.0", method: "notifications/initialized" });

  client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
  assert.deepEqual((await client.response(1)).result, { content: [{ type: "text", text: "5" }], isError: false });

  client.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: {}, _meta: { progressToken: "p" } } });
  assert.deepEqual((await client.notification("notifications/message")).params, { level: "info", data: "asking" });
  assert.deepEqual((await client.notification("notifications/progress")).params, { progressToken: "p", progress: 1, total: 2, message: "half" });
  const ask = await client.request("elicitation/create");
  client.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } });
  assert.equal((await client.response(2)).result.content[0].text, "hi Ada");
  assert.ok(
    client.raw.every((line) => line.startsWith("{") && !line.includes("\n")),
    "stdout holds JSON-RPC lines only",
  );
});

test("stdio: notifications/cancelled stops a running call and its answer is never sent", async (t) => {
  const client = pipes(t, fixture());
  client.send(INIT());
  await client.response(0);
  client.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "wait", arguments: {} } });
  client.send({ jsonrpc: "2.0", id: 4, method: "ping" });
  await client.response(4);
  client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
  client.send({ jsonrpc: "2.0", id: 5, method: "ping" });
  await client.response(5);
  assert.equal(
    client.raw.some((line) => JSON.parse(line).id === 3),
    false,
  );
});

test("stdio: bad lines get JSON-RPC errors, batches and blank lines work, an endless line is skipped", async (t) => {
  const client = pipes(t, fixture(), { maxLineBytes: 100 });
  client.input.write("not json\n");
  assert.equal((await client.response(null as never)).error.code, -32700);
  client.input.write("\r\n\n");
  client.send([
    { jsonrpc: "2.0", id: "a", method: "ping" },
    { jsonrpc: "2.0", id: "b", method: "nope" },
  ]);
  const { batch } = await client.batch();
  assert.deepEqual(
    batch.map((r: Message) => r.id),
    ["a", "b"],
  );
  assert.equal(batch[1].error.code, -32601);
  client.input.write(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${"x".repeat(100)}`);
  client.input.write(`"}}\n`);
  const tooLong = await client.response(null as never);
  assert.match(tooLong.error.message, /longer than 100 bytes/);
  client.send({ jsonrpc: "2.0", id: 10, method: "ping" });
  assert.deepEqual((await client.response(10)).result, {});
  assert.equal(
    client.raw.some((line) => JSON.parse(line).id === 9),
    false,
    "the over-long message was not served",
  );
});

test("stdio: the end of stdin ends the session; close() is safe twice", async (t) => {
  const server = fixture();
  const client = pipes(t, server);
  client.send(INIT());
  await client.response(0);
  assert.ok(server.sessions.get(client.served.sessionId));
  client.input.end();
  await client.served.closed;
  assert.equal(server.sessions.size, 0);
  await client.served.close();
});

test("stdio: a request with the 2026-07-28 envelope is served statelessly, with no header checks", async (t) => {
  const client = pipes(t, fixture());
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 }, _meta: meta } });
  const sum = await client.response(1);
  assert.equal(sum.result.resultType, "complete");
  assert.equal(sum.result.content[0].text, "5");
  client.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: {}, _meta: meta } });
  const round = (await client.response(2)).result;
  assert.equal(round.resultType, "input_required");
  assert.equal(round.inputRequests["elicitation-1"].method, "elicitation/create");
  client.send({ jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: meta } });
  assert.equal((await client.response(3)).error.code, -32601);
});

test("stdio: a broken stdout (the host went away) ends the session instead of the process", async () => {
  const server = fixture();
  const input = new PassThrough();
  const output = new PassThrough();
  const served = server.serveStdio({ input, output });
  output.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
  await served.closed;
  assert.equal(server.sessions.size, 0);
});
