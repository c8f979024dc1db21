// hub_bridge against a real hub gateway: a token the gateway refuses, and a tool whose
// group the account lacks, are reported as the user needs them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "../gateway/helpers.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";
import { DEMO_AND_LAB_GATEWAY, firstText } from "../bridge/shared-hub.ts";
const CONFIG = DEMO_AND_LAB_GATEWAY;
const text = firstText;

test("through the gateway: a refused token and a group denial are reported as the user needs them", { timeout: 55_000 }, async (t) => {
  const h = await startHarness(t, CONFIG);
  const refused = spawnBridge(t, { HUB_TOKEN: "hubtok_not_a_real_token", HUB_API: h.base, HUB_TOOLS: "mcpdemo" });
  await assert.rejects(refused.client.connect(refused.transport), (err: Error) => err.message.endsWith(`HUB_TOKEN was refused by ${h.base}`));
  await refused.waitForStderr(/HUB_TOKEN was refused by/);

  // alice is in `users`, not `staff`.
  const denied = spawnBridge(t, { HUB_TOKEN: h.tokens.alice, HUB_API: h.base, HUB_TOOLS: "mcpdemo,lab" });
  await denied.client.connect(denied.transport);
  const result = await denied.client.callTool({ name: "lab_add", arguments: { a: 1, b: 1 } });
  assert.equal(result.isError, true);
  assert.equal(text(result), "Access to tool lab was denied: it requires membership in group staff");
  assert.equal(text(await denied.client.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 1 } })), "2");
});
