import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../../lib/index.ts";
import type { JsonRpcMessage } from "../../../lib/util/jsonrpc.ts";
import type { Session } from "../../../lib/session/session.ts";

type Answer = { result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } };
const call = async (server: McpServer, method: string, params?: Record<string, unknown>, sessionId?: string) =>
  (await server.handle({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }, { sessionId })) as Answer;

/** A session with a stream that records what the server sends it. */
function listening(server: McpServer): { session: Session; got: JsonRpcMessage[] } {
  const session = server.sessions.create()!;
  const got: JsonRpcMessage[] = [];
  session.streams.add({ kind: "mcp", send: (m) => (got.push(m), true), close() {} });
  return { session, got };
}

function fixture() {
  const server = new McpServer("res");
  server.resource("test://static", () => "fixed", { mimeType: "text/plain" });
  server.resource("test://items/{id}", ({ id }: Record<string, string>) => ({ id }), { name: "item", title: "Item", mimeType: "application/json" });
  server.resource("test://items/special", () => "special wins", { mimeType: "text/plain" });
  server.resource("test://broken/{id}", () => {
    throw new Error("secret path /etc/x");
  });
  return server;
}

test("templates are listed apart from resources and read with their variables", async (t) => {
  const server = fixture();
  t.after(() => server.sessions.close());
  const list = await call(server, "resources/templates/list");
  assert.deepEqual(list.result!.resourceTemplates[0], { uriTemplate: "test://items/{id}", name: "item", title: "Item", mimeType: "application/json" });
  assert.deepEqual(
    (await call(server, "resources/list")).result!.resources.map((r: { uri: string }) => r.uri),
    ["test://static", "test://items/special"],
  );
  const read = await call(server, "resources/read", { uri: "test://items/42" });
  assert.deepEqual(read.result, { contents: [{ uri: "test://items/42", mimeType: "application/json", text: '{"id":"42"}' }] });
  assert.equal((await call(server, "resources/read", { uri: "test://items/special" })).result!.contents[0].text, "special wins");
  const missing = await call(server, "resources/read", { uri: "test://nothing" });
  assert.deepEqual(missing.error, { code: -32002, message: "Resource not found", data: { uri: "test://nothing" } });
  const broken = await call(server, "resources/read", { uri: "test://broken/1" });
  assert.deepEqual(broken.error, { code: -32603, message: "Resource handler failed" });
  assert.equal((await call(server, "resources/read", { uri: 5 })).error!.code, -32602);
});

test("initialize advertises subscribe, listChanged and completions", async () => {
  const init = await call(fixture(), "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });
  assert.deepEqual(init.result!.capabilities.resources, { subscribe: true, listChanged: true });
  assert.deepEqual(init.result!.capabilities.completions, {});
});

test("subscribers of a URI, and only they, hear notifications/resources/updated until they unsubscribe", async (t) => {
  const server = fixture();
  t.after(() => server.sessions.close());
  const a = listening(server);
  const b = listening(server);
  assert.deepEqual((await call(server, "resources/subscribe", { uri: "test://static" }, a.session.id)).result, {});
  assert.deepEqual((await call(server, "resources/subscribe", { uri: "test://items/7" }, b.session.id)).result, {});
  server.notifyResourceUpdated("test://static");
  server.notifyResourceUpdated("test://items/7");
  server.notifyResourceUpdated("test://items/8");
  assert.deepEqual(a.got, [{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://static" } }]);
  assert.deepEqual(b.got, [{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://items/7" } }]);
  assert.deepEqual((await call(server, "resources/unsubscribe", { uri: "test://static" }, a.session.id)).result, {});
  server.notifyResourceUpdated("test://static");
  assert.equal(a.got.length, 1);
  // Ending the session forgets its subscriptions.
  server.sessions.delete(b.session.id);
  server.notifyResourceUpdated("test://items/7");
  assert.equal(b.got.length, 1);
});

test("subscribing needs a session and a known URI", async (t) => {
  const server = fixture();
  t.after(() => server.sessions.close());
  assert.equal((await call(server, "resources/subscribe", { uri: "test://static" })).error!.code, -32600);
  assert.equal((await call(server, "resources/unsubscribe", { uri: "test://static" })).error!.code, -32600);
  const { session } = listening(server);
  assert.equal((await call(server, "resources/subscribe", { uri: "test://none" }, session.id)).error!.code, -32002);
  assert.equal((await call(server, "resources/subscribe", {}, session.id)).error!.code, -32602);
  assert.deepEqual((await call(server, "resources/unsubscribe", { uri: "test://never-subscribed" }, session.id)).result, {});
});

test("a session may watch at most 1,000 URIs; re-subscribing one it watches is fine", async (t) => {
  const server = fixture();
  t.after(() => server.sessions.close());
  const { session } = listening(server);
  for (let i = 0; i < 1000; i++) assert.deepEqual((await call(server, "resources/subscribe", { uri: `test://items/${i}` }, session.id)).result, {});
  assert.deepEqual((await call(server, "resources/subscribe", { uri: "test://items/7" }, session.id)).result, {});
  const over = await call(server, "resources/subscribe", { uri: "test://items/1000" }, session.id);
  assert.equal(over.error!.code, -32602);
  assert.match(over.error!.message, /limit 1000/);
  await call(server, "resources/unsubscribe", { uri: "test://items/0" }, session.id);
  assert.deepEqual((await call(server, "resources/subscribe", { uri: "test://items/1000" }, session.id)).result, {});
});

test("adding or removing anything after sessions exist sends list_changed to each session", async (t) => {
  const server = new McpServer("changing");
  server.tool(() => 1, { name: "early", inputSchema: { type: "object" } });
  t.after(() => server.sessions.close());
  const { got } = listening(server);
  server.tool(() => 2, { name: "late", inputSchema: { type: "object" } });
  server.resource("x://r", () => "r");
  server.resource("x://t/{id}", () => "t");
  server.prompt(() => "p", { name: "p", arguments: [] });
  assert.equal(server.removeTool("late"), true);
  assert.equal(server.removeTool("late"), false);
  assert.equal(server.removeResource("x://r"), true);
  assert.equal(server.removeResource("x://t/{id}"), true);
  assert.equal(server.removeResource("x://r"), false);
  server.resource("x://u/{id}", () => "u");
  assert.equal(server.removeResourceTemplate("x://nothing/{id}"), false);
  assert.equal(server.removeResourceTemplate("x://u/{id}"), true);
  assert.equal(server.removePrompt("p"), true);
  assert.equal(server.removePrompt("p"), false);
  assert.deepEqual(
    got.map((m) => ("method" in m ? m.method : "")),
    [
      "notifications/tools/list_changed",
      "notifications/resources/list_changed",
      "notifications/resources/list_changed",
      "notifications/prompts/list_changed",
      "notifications/tools/list_changed",
      "notifications/resources/list_changed",
      "notifications/resources/list_changed",
      "notifications/resources/list_changed",
      "notifications/resources/list_changed",
      "notifications/prompts/list_changed",
    ],
  );
  assert.deepEqual((await call(server, "resources/templates/list")).result!.resourceTemplates, []);
  assert.deepEqual(
    (await call(server, "tools/list")).result!.tools.map((x: { name: string }) => x.name),
    ["early"],
  );
  assert.throws(() => server.resource("x://a/{id}", () => "").resource("x://a/{id}", () => ""), /already registered/);
});
