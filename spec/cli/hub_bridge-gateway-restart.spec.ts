// hub_bridge against a real hub gateway that is restarted mid-session: the new process
// no longer knows the tool sessions, answers 404, and the bridge re-initialises once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startGateway } from "../../lib/gateway/server.ts";
import { parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { forThisCheckout, startHarness, ROOT } from "../gateway/helpers.ts";
import { appUriOf, assertAppFound } from "../helpers/apps-host.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";
import { firstText } from "../bridge/shared-hub.ts";
// One tool: a tool session takes seconds to start, and the restart starts it again.
const CONFIG = {
  tools: {
    mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } },
  },
};
const text = firstText;

test("through the gateway: a gateway restarted mid-session is picked up again transparently", { timeout: 55_000 }, async (t) => {
  const h = await startHarness(t, CONFIG);
  const bridge = spawnBridge(t, { HUB_TOKEN: h.tokens.carol, HUB_API: h.base, HUB_TOOLS: "mcpdemo" });
  await bridge.client.connect(bridge.transport);
  assert.equal(text(await bridge.client.callTool({ name: "add", arguments: { a: 1, b: 2 } })), "3");
  // One tool passes through unchanged, resource URIs too, so an MCP Apps host finds the App (issue 34.3).
  const projectile = (await bridge.client.listTools()).tools.find((x) => x.name === "projectile")!;
  const { resources } = await bridge.client.listResources();
  assert.equal(assertAppFound(projectile, resources, await bridge.client.readResource({ uri: appUriOf(projectile)! })), "ui://demo/plot");
  await h.gw.close();
  const again = await startGateway({ config: parseGatewayConfig(forThisCheckout(t, CONFIG), ROOT), store: h.store, port: h.gw.port });
  t.after(() => again.close());
  assert.equal(text(await bridge.client.callTool({ name: "add", arguments: { a: 2, b: 2 } })), "4");
  await bridge.waitForStderr(/mcpdemo: session ended on the gateway; starting a new one/);
});
