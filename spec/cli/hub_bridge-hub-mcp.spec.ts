// hub_bridge with HUB_TOOLS=* against a real hub gateway: it speaks to `{HUB_API}/mcp` and
// sees the names the bridge itself gives several tools, and only the tools of the token's
// person; calls, elicitation, sampling, roots, progress and a cancellation pass through the
// one endpoint.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { startHarness } from "../gateway/helpers.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";
import { DEMO_AND_LAB_GATEWAY, firstText as text } from "../bridge/shared-hub.ts";

test("HUB_TOOLS=* lists and calls every tool of the person through /mcp", { timeout: 55_000 }, async (t) => {
  const h = await startHarness(t, DEMO_AND_LAB_GATEWAY);
  const all = spawnBridge(t, { HUB_TOKEN: h.tokens.carol, HUB_API: h.base, HUB_TOOLS: "*" }, { elicitation: { form: {} }, sampling: {}, roots: {} });
  const named = spawnBridge(t, { HUB_TOKEN: h.tokens.carol, HUB_API: h.base, HUB_TOOLS: "mcpdemo,lab" });
  const { client } = all;
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Grace" } }));
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: "assistant",
    content: { type: "text", text: "girders hum softly" },
    model: "spec-model",
  }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: "file:///data/a" }] }));
  let waiting: () => void = () => {};
  const started = new Promise<void>((done) => (waiting = done));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.data === "waiting") waiting();
  });
  const progress: number[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params.progress));
  await client.connect(all.transport);
  await named.client.connect(named.transport);

  const names = (await client.listTools()).tools.map((x) => x.name);
  // The same names as the bridge gives each tool, but for job polling: /mcp has one
  // hub_get_job_result for every tool's jobs where the bridge lists each tool's own poller.
  // Both offer the relays' one search tool first (lib/federation/search.ts).
  const bridged = (await named.client.listTools()).tools.map((x) => x.name);
  assert.equal(bridged[0], "hub_search_tools");
  assert.equal(names[0], "hub_search_tools");
  assert.deepEqual(
    names.filter((n) => n !== "hub_search_tools" && n !== "hub_get_job_result").sort(),
    bridged.filter((n) => n !== "hub_search_tools" && !n.endsWith("_get_job_result")).sort(),
    "the same names as the bridge gives",
  );
  assert.deepEqual(
    (await client.listResources()).resources.map((r) => r.uri),
    (await named.client.listResources()).resources.map((r) => r.uri),
  );
  assert.equal(text(await client.callTool({ name: "lab_add", arguments: { a: 2, b: 5 } })), "lab: 7");
  assert.equal(text(await client.callTool({ name: "mcpdemo_ask_user", arguments: { timeout: 20 } })), "Hello, Grace!");
  assert.equal(text(await client.callTool({ name: "lab_haiku", arguments: {} })), "model said: girders hum softly", "sampling through /mcp");
  assert.equal(text(await client.callTool({ name: "lab_roots", arguments: {} })), "file:///data/a", "roots through /mcp");
  assert.equal(text(await client.callTool({ name: "lab_chatty", arguments: { steps: 3 } }, CallToolResultSchema, { onprogress: () => {} })), "did 3 steps");
  assert.deepEqual(progress, [1, 2, 3]);

  const before = Number(text(await client.callTool({ name: "lab_cancelled_count", arguments: {} })));
  const abort = new AbortController();
  const call = client.callTool({ name: "lab_wait_for_cancel", arguments: {} }, CallToolResultSchema, { signal: abort.signal });
  await started;
  abort.abort("no longer needed");
  await assert.rejects(call);
  assert.equal(Number(text(await client.callTool({ name: "lab_cancelled_count", arguments: { at_least: before + 1 } }))), before + 1);

  // bob is in no group: through /mcp he sees the open demo tool only.
  const bob = spawnBridge(t, { HUB_TOKEN: h.tokens.bob, HUB_API: h.base, HUB_TOOLS: "*" });
  await bob.client.connect(bob.transport);
  const bobs = (await bob.client.listTools()).tools.map((x) => x.name);
  assert.ok(bobs.includes("mcpdemo_add") && !bobs.some((n) => n.startsWith("lab_")));
});
