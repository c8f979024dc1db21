// The dispatcher on its own, with a session and an exchange and no transport: what it
// keeps per call is let go whether a method answers at once, later, or by throwing, and
// only its own methods answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClientRequests } from "../../lib/mcp/client-requests.ts";
import type { ServerCore } from "../../lib/mcp/core.ts";
import { Dispatcher, sharedMethods } from "../../lib/mcp/dispatcher.ts";
import type { MethodTable } from "../../lib/mcp/methods/types.ts";
import type { Exchange } from "../../lib/mcp/exchange.ts";
import { replyOf } from "../../lib/mcp/outcome.ts";
import { ResourceSubscriptions } from "../../lib/mcp/subscriptions.ts";
import { SessionTable } from "../../lib/session/session-table.ts";
import { silentLogger } from "../../lib/util/logger.ts";
import { McpServer } from "../../lib/index.ts";

function setup(t: { after(fn: () => unknown): void }, extra: MethodTable = {}) {
  const core: ServerCore = {
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
