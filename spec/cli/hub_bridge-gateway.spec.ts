// hub_bridge against a real hub gateway that runs the demo app and the lab app as tool
// sessions: the official SDK's stdio client spawns the bridge as a desktop host would.
// Its 401/403 answers and a restart are in the -auth and -restart specs (each file must
// finish within the runner's per-file bound, and tool sessions take seconds to start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallToolResultSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startHarness } from "../gateway/helpers.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";
import { DEMO_AND_LAB_GATEWAY, firstText } from "../bridge/shared-hub.ts";

const CONFIG = DEMO_AND_LAB_GATEWAY;
const text = firstText;

test("through the gateway: list, call both tools, elicitation, progress, a task and cancellation", { timeout: 55_000 }, async (t) => {
  const h = await startHarness(t, CONFIG);
  const bridge = spawnBridge(
    t,
    { HUB_TOKEN: h.tokens.carol, HUB_API: h.base, HUB_TOOLS: "mcpdemo,lab" },
    { elicitation: { form: {} }, tasks: { requests: { tools: { call: {} } } } },
  );
  const { client } = bridge;
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Grace" } }));
  let waiting: () => void = () => {};
  const started = new Promise<void>((done) => (waiting = done));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (n.params.data === "waiting") waiting();
  });
  const progress: number[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params.progress));
  await client.connect(bridge.transport);

  const names = (await client.listTools()).tools.map((x) => x.name);
  for (const name of ["mcpdemo_add", "mcpdemo_ask_user", "lab_add", "lab_chatty"]) assert.ok(names.includes(name), name);
  assert.equal(text(await client.callTool({ name: "mcpdemo_add", arguments: { a: 2, b: 5 } })), "7");
  // The gateway's own URI prefix gives way to the bridge's, so lists match the tools' `_meta` links.
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  assert.deepEqual(uris, ["config://mcpdemo/demo/settings", "ui://mcpdemo/demo/plot", "lab://lab/status"]);
  const projectile = (await client.listTools()).tools.find((x) => x.name === "mcpdemo_projectile");
  assert.deepEqual(projectile?._meta, { ui: { resourceUri: "ui://mcpdemo/demo/plot" } });
  const plot = await client.readResource({ uri: "ui://mcpdemo/demo/plot" });
  assert.equal(plot.contents[0]?.uri, "ui://mcpdemo/demo/plot");
  const run = await client.readResource({ uri: "lab://lab/runs/3" });
  assert.equal((run.contents[0] as { text: string }).text, "run 3");
  assert.equal(text(await client.callTool({ name: "lab_add", arguments: { a: 2, b: 5 } })), "lab: 7");
  assert.equal(text(await client.callTool({ name: "mcpdemo_ask_user", arguments: { timeout: 20 } })), "Hello, Grace!");

  assert.equal(text(await client.callTool({ name: "lab_chatty", arguments: { steps: 3 } }, CallToolResultSchema, { onprogress: () => {} })), "did 3 steps");
  assert.deepEqual(progress, [1, 2, 3]);

  const stream = client.experimental.tasks.callToolStream({ name: "mcpdemo_slow_sum", arguments: { values: "4,5", delay: 0.05 } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  let final: Record<string, unknown> | undefined;
  const kinds: string[] = [];
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === "result") final = message.result as Record<string, unknown>;
    if (message.type === "error") throw message.error;
  }
  assert.equal(kinds[0], "taskCreated");
  assert.equal(text(final!), "9");

  const before = Number(text(await client.callTool({ name: "lab_cancelled_count", arguments: {} })));
  const abort = new AbortController();
  const call = client.callTool({ name: "lab_wait_for_cancel", arguments: {} }, CallToolResultSchema, { signal: abort.signal });
  await started;
  abort.abort("no longer needed");
  await assert.rejects(call);
  assert.equal(Number(text(await client.callTool({ name: "lab_cancelled_count", arguments: { at_least: before + 1 } }))), before + 1);
});
