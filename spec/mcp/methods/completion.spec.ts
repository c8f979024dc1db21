import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../../lib/index.ts";

type Answer = { result?: Record<string, any>; error?: { code: number; message: string } };
const complete = async (server: McpServer, params: Record<string, unknown>) =>
  (await server.handle({ jsonrpc: "2.0", id: 1, method: "completion/complete", params })) as Answer;

function fixture() {
  const server = new McpServer("complete");
  server.prompt(({ city }: { city: string; country: string }) => `Visit ${city}`, {
    name: "trip",
    arguments: [{ name: "city", required: true }, { name: "country" }],
    complete: {
      city: (value, { arguments: args }) => (args.country === "fr" ? ["paris", "park", "lyon"] : ["portland"]).filter((c) => c.startsWith(value)),
    },
  });
  server.resource("data://runs/{id}", () => "", {
    complete: { id: () => Array.from({ length: 150 }, (_, i) => `run-${i}`) },
  });
  server.resource("data://fixed", () => "");
  server.prompt(() => "x", { name: "failing", arguments: [{ name: "a" }], complete: { a: () => Promise.reject(new Error("db down")) } });
  return server;
}

test("prompt arguments complete from the typed text and the other arguments", async () => {
  const server = fixture();
  const fr = await complete(server, {
    ref: { type: "ref/prompt", name: "trip" },
    argument: { name: "city", value: "pa" },
    context: { arguments: { country: "fr" } },
  });
  assert.deepEqual(fr.result, { completion: { values: ["paris", "park"], total: 2, hasMore: false } });
  const other = await complete(server, { ref: { type: "ref/prompt", name: "trip" }, argument: { name: "city", value: "p" } });
  assert.deepEqual(other.result!.completion.values, ["portland"]);
  const none = await complete(server, { ref: { type: "ref/prompt", name: "trip" }, argument: { name: "country", value: "" } });
  assert.deepEqual(none.result, { completion: { values: [], hasMore: false } });
});

test("template variables complete, capped at 100 values", async () => {
  const server = fixture();
  const runs = await complete(server, { ref: { type: "ref/resource", uri: "data://runs/{id}" }, argument: { name: "id", value: "" } });
  assert.equal(runs.result!.completion.values.length, 100);
  assert.equal(runs.result!.completion.total, 150);
  assert.equal(runs.result!.completion.hasMore, true);
  const fixed = await complete(server, { ref: { type: "ref/resource", uri: "data://fixed" }, argument: { name: "x", value: "" } });
  assert.deepEqual(fixed.result!.completion.values, []);
});

test("bad references and arguments get JSON-RPC errors; a failing completer stays private", async () => {
  const server = fixture();
  const arg = { name: "a", value: "" };
  assert.equal((await complete(server, { ref: { type: "ref/prompt", name: "nope" }, argument: arg })).error!.code, -32602);
  assert.equal((await complete(server, { ref: { type: "ref/prompt" }, argument: arg })).error!.code, -32602);
  assert.equal((await complete(server, { ref: { type: "ref/resource", uri: "data://other" }, argument: arg })).error!.code, -32002);
  assert.equal((await complete(server, { ref: { type: "ref/resource" }, argument: arg })).error!.code, -32602);
  assert.equal((await complete(server, { ref: { type: "ref/tool", name: "x" }, argument: arg })).error!.code, -32602);
  assert.equal((await complete(server, { ref: "x", argument: arg })).error!.code, -32602);
  assert.equal((await complete(server, { ref: { type: "ref/prompt", name: "trip" }, argument: { name: "city" } })).error!.code, -32602);
  const failed = await complete(server, { ref: { type: "ref/prompt", name: "failing" }, argument: arg });
  assert.deepEqual(failed.error, { code: -32603, message: "Completion failed" });
});

test("completers are checked when the prompt is registered", () => {
  const server = new McpServer("x");
  assert.throws(() => server.prompt(() => "", { name: "p", arguments: [{ name: "a" }], complete: { b: () => [] } }), /not one of its arguments/);
});
