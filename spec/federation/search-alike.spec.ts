// The built-in search is one decision for both relays (route-moves.ts searchOf): the same
// searches sent through hub_bridge's relay (before it listed anything: it lists first) and
// through /mcp (from the person's cached view) over the same two tool servers get the same
// answers, bad arguments the same tool errors.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { bridgeCaller, type Caller, connectorCaller, toolServers } from "./two-relays.ts";

const SEARCHES: Array<Record<string, unknown>> = [
  { query: "wait cancelled" },
  { query: "echo", limit: 1 },
  { query: "nothing like it" },
  { query: 5 },
  { query: "echo", limit: 0 },
  {},
];

async function answers(t: TestContext, start: (t: TestContext, urls: Record<string, string>) => Promise<Caller>): Promise<unknown[]> {
  const caller = await start(t, (await toolServers(t)).urls);
  const found: unknown[] = [];
  for (const [i, args] of SEARCHES.entries()) found.push(await caller.request("tools/call", { name: "hub_search_tools", arguments: args }, `s${i}`));
  return found;
}

test("hub_bridge and /mcp answer the built-in search alike", { timeout: 60_000 }, async (t) => {
  const bridge = await answers(t, bridgeCaller);
  const mcp = await answers(t, connectorCaller);
  assert.deepEqual(mcp, bridge);
  const names = (answer: unknown) => ((answer as { structuredContent?: { tools: Array<{ name: string }> } }).structuredContent?.tools ?? []).map((x) => x.name);
  assert.deepEqual(names(bridge[0]).sort(), ["alpha_wait", "beta_wait"]);
  assert.deepEqual(names(bridge[1]).length, 1);
  assert.deepEqual(names(bridge[2]), []);
  for (const bad of bridge.slice(3)) assert.equal((bad as { isError?: boolean }).isError, true);
});
