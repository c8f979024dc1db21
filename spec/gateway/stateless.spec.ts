// The gateway relays MCP 2026-07-28 requests to a real hubmcp tool server: no session is
// needed or minted, the Mcp-Method/Mcp-Name routing headers reach the tool server, and a
// resource URI the gateway unprefixes takes its Mcp-Name along.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness } from "./helpers.ts";

const V = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };

test("2026-07-28 requests through the gateway: stateless calls, header checks, resource URIs", { timeout: 90_000 }, async (t) => {
  const h = await startHarness(
    t,
    { tools: { mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } },
    { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } },
  );
  const url = `${h.base}/api/mcp/mcpdemo/mcp`;
  const headers = (method: string, name?: string): Record<string, string> => ({
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  });

  const discover = await post(url, h.tokens.alice, rpc("server/discover", { _meta: meta }), headers("server/discover"));
  assert.equal(discover.status, 200);
  assert.equal(discover.headers.get("mcp-session-id"), null);
  assert.deepEqual((await json(discover)).result.supportedVersions, [V]);

  // A stray session id is neither checked nor sent on.
  const sum = await post(url, h.tokens.alice, rpc("tools/call", { name: "add", arguments: { a: 2, b: 3 }, _meta: meta }), {
    ...headers("tools/call", "add"),
    "mcp-session-id": "not-a-session",
  });
  assert.equal(sum.status, 200);
  const result = (await json(sum)).result;
  assert.equal(result.resultType, "complete");
  assert.equal(result.content[0].text, "5");

  const mismatch = await post(url, h.tokens.alice, rpc("tools/call", { name: "add", arguments: { a: 1, b: 1 }, _meta: meta }), headers("tools/call", "divide"));
  assert.equal(mismatch.status, 400);
  assert.equal((await json(mismatch)).error.code, -32020);

  // A URI sent with the gateway's address in front (as earlier gateways listed them) still reads,
  // Mcp-Name naming the same URI; the answer names it as the tool does.
  const uri = `${h.base}/api/mcp/mcpdemo/config://demo/settings`;
  const read = await post(url, h.tokens.alice, rpc("resources/read", { uri, _meta: meta }), headers("resources/read", uri));
  assert.equal(read.status, 200);
  const contents = (await json(read)).result.contents;
  assert.equal(contents[0].uri, "config://demo/settings");

  // An MCP App's HTML through the gateway, checked field by field against the 2026-07-28
  // ReadResourceResult (no copy of the schema is on disk): a host that validates would refuse
  // a read without ttlMs/cacheScope, and the App would never load.
  const appUri = "ui://demo/plot";
  const appRead = await post(url, h.tokens.alice, rpc("resources/read", { uri: appUri, _meta: meta }), headers("resources/read", appUri));
  assert.equal(appRead.status, 200);
  const app = (await json(appRead)).result;
  assert.deepEqual(Object.keys(app).sort(), ["_meta", "cacheScope", "contents", "resultType", "ttlMs"]);
  assert.equal(app.resultType, "complete");
  assert.ok(Number.isSafeInteger(app.ttlMs) && app.ttlMs >= 0);
  assert.ok(app.cacheScope === "public" || app.cacheScope === "private");
  assert.equal(app._meta["io.modelcontextprotocol/serverInfo"].name, "hubmcp-demo");
  assert.equal(app.contents.length, 1);
  assert.equal(app.contents[0].uri, appUri);
  assert.equal(app.contents[0].mimeType, "text/html;profile=mcp-app");
  assert.match(app.contents[0].text, /^<!doctype html>/);
  assert.equal(app.contents[0].blob, undefined);

  const noToken = await post(url, undefined, rpc("server/discover", { _meta: meta }), headers("server/discover"));
  assert.equal(noToken.status, 401);
});
