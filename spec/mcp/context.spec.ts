import { test } from "node:test";
import assert from "node:assert/strict";
import { Context, type ContextHooks } from "../../lib/mcp/context.ts";
import { ClientRequests, type ClientRequestError, type ClientRequestFailure } from "../../lib/mcp/client-requests.ts";
import type { ServerCore } from "../../lib/mcp/core.ts";
import { Call } from "../../lib/mcp/exchange.ts";
import type { JsonRpcMessage, JsonRpcRequest } from "../../lib/util/jsonrpc.ts";
import { Session } from "../../lib/session/session.ts";

interface ContextSetup {
  session: Session | null;
  progressToken?: string;
  requests?: ClientRequests;
  hooks?: ContextHooks;
  send(message: JsonRpcMessage): void;
}

/** A tool context over a bare exchange: the transport is the `send` given. */
function contextOver(o: ContextSetup): Context {
  const core = { clientRequests: o.requests ?? new ClientRequests() } as unknown as ServerCore;
  const exchange = { session: o.session, signal: new AbortController().signal, send: (m: JsonRpcMessage) => (o.send(m), true) };
  return new Context(new Call(core, 7, exchange), o.progressToken, o.hooks);
}

const FORM = { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] } as const;

/** A context whose client answers every request with `answer(request)` (undefined: never answers). */
function setup(capabilities: Record<string, unknown> | null, answer: (r: JsonRpcRequest) => Record<string, unknown> | undefined = () => undefined) {
  const requests = new ClientRequests();
  const session = capabilities === null ? null : new Session("s", Date.now());
  if (session && capabilities) session.clientCapabilities = capabilities;
  const sent: JsonRpcMessage[] = [];
  const ctx = contextOver({
    session,
    requests,
    send(message) {
      sent.push(message);
      if ("id" in message && "method" in message) {
        const result = answer(message);
        if (result !== undefined) queueMicrotask(() => requests.settle({ jsonrpc: "2.0", id: message.id, result }, session));
      }
    },
  });
  return { ctx, sent, requests };
}

const code = (c: ClientRequestFailure) => (err: ClientRequestError) => err.code === c;

test("elicit sends a form-mode elicitation/create and returns each ordinary answer", async () => {
  for (const [result, expected] of [
    [
      { action: "accept", content: { name: "Ada" } },
      { action: "accept", content: { name: "Ada" } },
    ],
    [{ action: "decline" }, { action: "decline" }],
    [{ action: "cancel", content: { ignored: 1 } }, { action: "cancel" }],
  ] as const) {
    const { ctx, sent } = setup({ elicitation: {} }, () => ({ ...result }));
    assert.deepEqual(await ctx.elicit("Your name?", FORM), expected);
    const request = sent[0] as JsonRpcRequest;
    assert.equal(request.method, "elicitation/create");
    assert.deepEqual(request.params, { mode: "form", message: "Your name?", requestedSchema: FORM });
  }
});

test("elicit rejects a nested schema at the call, before anything is sent", async () => {
  const { ctx, sent } = setup({ elicitation: {} });
  const nested = { type: "object", properties: { address: { type: "object", properties: {} } } };
  await assert.rejects(ctx.elicit("Where?", nested), (err: Error) => err instanceof TypeError && /must be flat/.test(err.message));
  await assert.rejects(ctx.elicit("Name?", FORM, { timeout: 0 }), TypeError);
  assert.equal(sent.length, 0);
});

test("elicit checks the declared capability: {} and {form} allow forms, {url} alone does not", async () => {
  await assert.rejects(
    setup({}).ctx.elicit("x", FORM),
    (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_UNSUPPORTED" && /elicitation/.test(err.message),
  );
  await assert.rejects(setup({ elicitation: { url: {} } }).ctx.elicit("x", FORM), code("HUBMCP_CLIENT_UNSUPPORTED"));
  await assert.rejects(
    setup(null).ctx.elicit("x", FORM),
    (err: ClientRequestError) => err.code === "HUBMCP_CLIENT_UNSUPPORTED" && /needs an MCP session/.test(err.message),
  );
  const both = setup({ elicitation: { form: {}, url: {} } }, () => ({ action: "decline" }));
  assert.deepEqual(await both.ctx.elicit("x", FORM), { action: "decline" });
});

test("an accepted answer must match the schema and every answer needs a valid action", async () => {
  await assert.rejects(
    setup({ elicitation: {} }, () => ({ action: "accept", content: { name: "" } })).ctx.elicit("x", FORM),
    code("HUBMCP_CLIENT_INVALID_ANSWER"),
  );
  await assert.rejects(setup({ elicitation: {} }, () => ({ action: "maybe" })).ctx.elicit("x", FORM), code("HUBMCP_CLIENT_INVALID_ANSWER"));
});

test("elicit gives up after its timeout in seconds", async () => {
  const { ctx, requests } = setup({ elicitation: {} });
  await assert.rejects(ctx.elicit("x", FORM, { timeout: 0.02 }), code("HUBMCP_CLIENT_TIMEOUT"));
  assert.equal(requests.size, 0);
});

test("elicitUrl sends URL mode with an elicitation id, and the completion notice names it", async () => {
  const { ctx, sent } = setup({ elicitation: { url: {} } }, () => ({ action: "accept" }));
  const answer = await ctx.elicitUrl("Sign in", "https://example.org/login", { elicitationId: "e-1" });
  assert.deepEqual(answer, { action: "accept", elicitationId: "e-1" });
  assert.deepEqual((sent[0] as JsonRpcRequest).params, { mode: "url", message: "Sign in", url: "https://example.org/login", elicitationId: "e-1" });
  ctx.completeElicitation("e-1");
  assert.deepEqual(sent[1], { jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: "e-1" } });
  const random = await ctx.elicitUrl("Sign in", "https://example.org/login");
  assert.match(random.elicitationId, /^[0-9a-f-]{36}$/);
  await assert.rejects(ctx.elicitUrl("Sign in", "not a url"), TypeError);
  await assert.rejects(setup({ elicitation: {} }).ctx.elicitUrl("x", "https://example.org/"), code("HUBMCP_CLIENT_UNSUPPORTED"));
});

test("sample sends sampling/createMessage, from a string or full params, and checks the answer", async () => {
  const reply = { role: "assistant", content: { type: "text", text: "42" }, model: "m", stopReason: "endTurn" };
  const { ctx, sent } = setup({ sampling: {} }, () => reply);
  assert.deepEqual(await ctx.sample("What is six times seven?"), reply);
  assert.deepEqual((sent[0] as JsonRpcRequest).params, {
    messages: [{ role: "user", content: { type: "text", text: "What is six times seven?" } }],
    maxTokens: 1000,
  });
  const full = { messages: [{ role: "user" as const, content: { type: "text", text: "hi" } }], maxTokens: 5, temperature: 0 };
  await ctx.sample(full, { timeout: 1 });
  assert.deepEqual((sent[1] as JsonRpcRequest).params, full);
  await assert.rejects(ctx.sample({ messages: "no" } as never), TypeError);
  await assert.rejects(setup({ sampling: {} }, () => ({ role: "robot" })).ctx.sample("x"), code("HUBMCP_CLIENT_INVALID_ANSWER"));
  await assert.rejects(setup({ elicitation: {} }).ctx.sample("x"), code("HUBMCP_CLIENT_UNSUPPORTED"));
});

test("listRoots asks roots/list and checks the answer", async () => {
  const roots = [{ uri: "file:///home/ada/project", name: "project" }];
  assert.deepEqual(await setup({ roots: { listChanged: true } }, () => ({ roots })).ctx.listRoots(), roots);
  await assert.rejects(setup({ roots: {} }, () => ({ roots: [{ name: "no uri" }] })).ctx.listRoots(), code("HUBMCP_CLIENT_INVALID_ANSWER"));
  await assert.rejects(setup({}).ctx.listRoots(), code("HUBMCP_CLIENT_UNSUPPORTED"));
});

test("log levels honour the session's level and progress needs a token and never goes back", () => {
  const session = new Session("s", Date.now());
  session.logLevel = "warning";
  const sent: JsonRpcMessage[] = [];
  const ctx = contextOver({ session, progressToken: "tok", send: (m) => void sent.push(m) });
  ctx.debug("d");
  ctx.info("i");
  ctx.notice("n");
  ctx.warning("w", "app");
  ctx.error("e");
  ctx.critical("c");
  ctx.alert("a");
  ctx.emergency("x");
  assert.deepEqual(
    sent.map((m) => ("params" in m ? m.params : null)),
    [
      { level: "warning", data: "w", logger: "app" },
      { level: "error", data: "e" },
      { level: "critical", data: "c" },
      { level: "alert", data: "a" },
      { level: "emergency", data: "x" },
    ],
  );
  sent.length = 0;
  ctx.reportProgress(1, 10, "one");
  ctx.reportProgress(0.5);
  ctx.reportProgress(1); // MCP: progress must increase, so a repeat is not sent
  ctx.reportProgress(Number.NaN);
  ctx.reportProgress(2);
  assert.deepEqual(
    sent.map((m) => ("params" in m ? m.params : null)),
    [
      { progressToken: "tok", progress: 1, total: 10, message: "one" },
      { progressToken: "tok", progress: 2 },
    ],
  );
  const quiet = contextOver({ session: null, send: (m) => void sent.push(m) });
  quiet.reportProgress(1);
  assert.equal(sent.length, 2);
});

test("a context hook hears when the handler starts and stops waiting on the client, answered or not", async () => {
  const requests = new ClientRequests();
  const session = new Session("s", Date.now());
  session.clientCapabilities = { elicitation: {} };
  const waits: boolean[] = [];
  const ctx = contextOver({
    session,
    requests,
    hooks: { onClientWait: (waiting) => waits.push(waiting) },
    send(message) {
      if ("id" in message && "method" in message) {
        queueMicrotask(() => requests.settle({ jsonrpc: "2.0", id: message.id, result: { action: "decline" } }, session));
      }
    },
  });
  assert.deepEqual(await ctx.elicit("x", FORM), { action: "decline" });
  assert.deepEqual(waits, [true, false]);
  await assert.rejects(ctx.sample("x"), code("HUBMCP_CLIENT_UNSUPPORTED"));
  assert.deepEqual(waits, [true, false], "a refused request never waited");
});
