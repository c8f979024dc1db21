// The dispatcher on its own, with a session and an exchange and no transport: what it
// keeps per call is let go whether a method answers at once, later, or by throwing, and
// only its own methods answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClientRequests } from "../../lib/mcp/client-requests.ts";
import type { ServerCore } from "../../lib/mcp/core.ts";
import { Dispatcher, sharedMethods } from "../../lib/mcp/dispatcher.ts";
import { NO_ANSWER, type MethodTable } from "../../lib/mcp/methods/types.ts";
import type { Exchange } from "../../lib/mcp/exchange.ts";
import { replyOf } from "../../lib/mcp/outcome.ts";
import { ResourceSubscriptions } from "../../lib/mcp/subscriptions.ts";
import { SessionTable } from "../../lib/session/session-table.ts";
import { silentLogger } from "../../lib/util/logger.ts";
import { McpServer } from "../../lib/index.ts";

function setupCore(): ServerCore {
  return {
    info: { name: "d", version: "1" },
    instructions: undefined,
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
    templates: new Map(),
    pageSize: 100,
    maxBatchSize: 100,
    clientRequests: new ClientRequests(),
    subscriptions: new ResourceSubscriptions(),
    logger: silentLogger,
  };
}

function setup(t: { after(fn: () => unknown): void }, extra: MethodTable = {}) {
  const core = setupCore();
  const dispatcher = new Dispatcher(core, { ...sharedMethods(), ...extra });
  const table = new SessionTable();
  t.after(() => table.close());
  const session = table.create()!;
  const exchange: Exchange = { session, send: () => true };
  return { dispatcher, session, exchange };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method, params });

test("a call's in-flight entry is let go however its method ends", async (t) => {
  const thenThrows = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === "then") throw new Error("no then");
        return undefined;
      },
    },
  );
  const { dispatcher, session, exchange } = setup(t, {
    "test/sync": (params) => params,
    "test/async": async (params) => params,
    "test/throws": () => {
      throw new Error("boom");
    },
    "test/then-throws": () => thenThrows,
  });
  const sync = dispatcher.answer(request(1, "test/sync", { n: 1 }), exchange);
  assert.ok(!(sync instanceof Promise), "a synchronous method is answered in the same turn");
  assert.deepEqual(replyOf(sync), { jsonrpc: "2.0", id: 1, result: { n: 1 } });
  assert.equal(dispatcher.inflight.count(session), 0);
  assert.deepEqual(replyOf(await dispatcher.answer(request(2, "test/async", { n: 2 }), exchange)), { jsonrpc: "2.0", id: 2, result: { n: 2 } });
  assert.equal(dispatcher.inflight.count(session), 0);
  const failed = await dispatcher.handle(request(3, "test/throws"), exchange);
  assert.equal((replyOf(failed) as { error: { code: number } }).error.code, -32603);
  const odd = await dispatcher.handle(request(4, "test/then-throws"), exchange);
  assert.equal((replyOf(odd) as { error: { code: number } }).error.code, -32603);
  assert.equal(dispatcher.inflight.count(session), 0);
});

test("only the dispatcher's own methods answer: names of Object.prototype are not found", async (t) => {
  const { dispatcher, exchange } = setup(t);
  for (const method of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
    const answer = await dispatcher.handle(request(1, method, { a: 1 }), exchange);
    assert.equal((replyOf(answer) as { error: { code: number } }).error.code, -32601, method);
  }
  assert.equal(replyOf(await dispatcher.handle({ jsonrpc: "2.0", method: "constructor" }, exchange)), null);
});

test("a tool whose result throws when asked for `then` fails as a tool, like any throw", async () => {
  const server = new McpServer("odd");
  server.tool(
    () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("no such field");
          },
        },
      ),
    { name: "odd" },
  );
  const res = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "odd", arguments: {} } })) as unknown as {
    result: { isError: boolean };
  };
  assert.equal(res.result.isError, true);
});

test("a server that is no lib/mcp session brings its own notification and response handlers; NO_ANSWER leaves a call out", async (t) => {
  const { exchange } = setup(t);
  const core = setupCore();
  const heard: string[] = [];
  const errors: string[] = [];
  const logged: ServerCore = { ...core, logger: { ...silentLogger, error: (message: string) => void errors.push(message) } };
  const dispatcher = new Dispatcher(logged, { "test/cancelled": () => NO_ANSWER, "test/fine": () => ({ ok: true }) }, undefined, {
    notification: async (m) => {
      heard.push(m.method);
      if (m.method === "test/breaks") throw new Error("down");
    },
    response: (m) => void heard.push(`answer ${String(m.id)}`),
  });
  // Waited on before the message counts as delivered; a failure is logged, never answered.
  assert.equal(await dispatcher.handleMessage({ kind: "notification", message: { jsonrpc: "2.0", method: "notifications/initialized" } }, exchange), null);
  assert.equal(await dispatcher.handleMessage({ kind: "notification", message: { jsonrpc: "2.0", method: "test/breaks" } }, exchange), null);
  assert.deepEqual(errors, ["notification handler failed"]);
  assert.equal(dispatcher.handleMessage({ kind: "response", message: { jsonrpc: "2.0", id: 4, result: {} } }, exchange), null);
  assert.deepEqual(heard, ["notifications/initialized", "test/breaks", "answer 4"]);
  // The handlers replace the session's own: the session was not marked initialized by them.
  assert.equal(exchange.session!.initialized, false);
  const batch = replyOf(await dispatcher.handle([request(1, "test/cancelled"), request(2, "test/fine")], exchange));
  assert.deepEqual(batch, [{ jsonrpc: "2.0", id: 2, result: { ok: true } }]);
  assert.equal((await dispatcher.handle(request(3, "test/cancelled"), exchange)).kind, "accepted");
});
