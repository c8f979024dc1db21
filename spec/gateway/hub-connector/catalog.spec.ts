// A hub of 300 tools (a stand-in upstream serves them all): the catalog is filled once per
// tool whoever lists, tools/list pages through it, hub_search_tools ranks it, a tool may opt
// out of the catalog or have another revision listed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness } from "../helpers.ts";
import { startStandIn } from "./stand-in-tools.ts";
import { Catalogs } from "../../../lib/gateway/hub-connector/catalogs.ts";
import { Agent } from "node:http";

const N = 300;

test("300 tools: filled once, paginated, searchable", { timeout: 120_000 }, async (t) => {
  const standIn = await startStandIn();
  t.after(() => new Promise((done) => standIn.server.close(done)));
  const tools: Record<string, unknown> = {};
  for (let i = 0; i < N; i++) tools[`t${i}`] = { revisions: { default: { url: `${standIn.url}/t${i}/` } } };
  tools.t0 = { catalog: false, revisions: { default: { url: `${standIn.url}/t0/` } } };
  tools.t1 = { catalogRevision: "v2", revisions: { default: { url: `${standIn.url}/t1/` }, v2: { url: `${standIn.url}/t1v2/` } } };
  // The default caps (8 tool sessions per person, 200 in all): filling stops what it started.
  const h = await startHarness(t, { tools, connector: { pageSize: 50 } });
  const url = `${h.base}/mcp`;

  const session = async (token: string): Promise<Record<string, string>> => {
    const init = await post(url, token, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }));
    return { "mcp-session-id": init.headers.get("mcp-session-id")! };
  };
  const listAll = async (token: string, headers: Record<string, string>): Promise<Array<{ name: string; description: string }>> => {
    const out: Array<{ name: string; description: string }> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await json(await post(url, token, rpc("tools/list", cursor ? { cursor } : {}), headers));
      out.push(...body.result.tools);
      cursor = body.result.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, Math.ceil((N + 1) / 50));
    return out;
  };

  const alice = await session(h.tokens.alice);
  const listed = await listAll(h.tokens.alice, alice);
  assert.equal(listed.length, N + 1);
  assert.equal(new Set(listed.map((x) => x.name)).size, N + 1);
  assert.equal(listed[0]!.name, "hub_search_tools");
  assert.equal(listed.find((x) => x.name === "t1_run")!.description.endsWith("(version 2)"), true, "catalogRevision picks the revision listed");
  await listAll(h.tokens.bob, await session(h.tokens.bob));
  assert.equal(standIn.listings.get("t7"), 1, "one listing per tool, whoever lists");
  assert.equal(standIn.listings.get("t1v2"), 1);
  assert.equal(standIn.listings.get("t1"), undefined);
  assert.equal(standIn.listings.get("t0"), 2, "a tool with catalog: false is listed live");

  const bad = await json(await post(url, h.tokens.alice, rpc("tools/list", { cursor: "nonsense" }), alice));
  assert.equal(bad.error.code, -32602);

  const search = async (args: Record<string, unknown>): Promise<Record<string, unknown>> =>
    (await json(await post(url, h.tokens.alice, rpc("tools/call", { name: "hub_search_tools", arguments: args }), alice))).result;
  const found = (await search({ query: "simulates heat diffusion", limit: 5 })).structuredContent as { tools: Array<{ name: string; description: string }> };
  assert.equal(found.tools.length, 5);
  // Only tools 103, 113, ..., 143 (verb 2 = simulates, topic 3 = heat diffusion) have both.
  for (const hit of found.tools) assert.match(hit.description, /^simulates the heat diffusion/);
  assert.equal((await search({ query: 42 })).isError, true);
  assert.equal((await search({ query: "x", limit: 0 })).isError, true);
  assert.deepEqual(((await search({ query: "!!!" })).structuredContent as { tools: unknown[] }).tools, []);

  const call = await post(url, h.tokens.alice, rpc("tools/call", { name: "t299_run", arguments: {} }), alice);
  assert.match(await call.text(), /notifications\/tools\/list_changed[\s\S]*ran t299/);
  const relisted = await listAll(h.tokens.bob, await session(h.tokens.bob));
  assert.equal(standIn.listings.get("t299"), 2, "a list change refills that tool's catalog");
  assert.equal(standIn.listings.get("t7"), 1, "and no other");
  assert.match(relisted.find((x) => x.name === "t299_run")!.description, /\(changed\)$/);
});

test("a catalog older than its bound is filled again", { timeout: 30_000 }, async (t) => {
  const standIn = await startStandIn();
  t.after(() => new Promise((done) => standIn.server.close(done)));
  const rec = { url: `${standIn.url}/t5/`, agent: new Agent({ keepAlive: true }) };
  t.after(() => rec.agent.destroy());
  const fresh = new Catalogs(60_000);
  await fresh.get("t5", "default", true, async () => rec);
  await fresh.get("t5", "default", true, async () => rec);
  assert.equal(standIn.listings.get("t5"), 1);
  const stale = new Catalogs(0);
  await stale.get("t5", "default", true, async () => rec);
  await stale.get("t5", "default", true, async () => rec);
  assert.equal(standIn.listings.get("t5"), 3);
  await assert.rejects(
    stale.get("t6", "default", true, async () => Promise.reject(new Error("no session"))),
    /no session/,
  );
});
