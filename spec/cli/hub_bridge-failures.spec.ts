// hub_bridge when the gateway refuses or fails: a refused token, a tool that needs a group,
// a tool that is down (and comes back), a gateway that forgot its sessions, and no gateway
// at all. The stand-in gateway answers the way the hub gateway does in each case.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { bridgeEnv, firstText, standInForFile } from "../bridge/shared-hub.ts";
import { spawnBridge } from "../bridge/bridge-client.ts";

const hub = standInForFile();
const env = (tools: string, extra: Record<string, string> = {}) => bridgeEnv(hub, tools, extra);
const text = firstText;

test("a refused token: the host is told HUB_TOKEN was refused by HUB_API, and so is stderr", { timeout: 30_000 }, async (t) => {
  const bridge = spawnBridge(t, env("mcpdemo,lab", { HUB_TOKEN: "hubtok_wrong" }));
  const expected = `HUB_TOKEN was refused by ${hub.url}`;
  await assert.rejects(bridge.client.connect(bridge.transport), (err: Error) => err.message.endsWith(expected));
  await bridge.waitForStderr(/HUB_TOKEN was refused/);
  assert.equal(
    bridge
      .stderr()
      .split("\n")
      .filter((l) => l.includes(expected)).length,
    1,
  );
  assert.doesNotMatch(bridge.stderr(), /hubtok_wrong/);
});

test("a tool the account may not use: the error names the tool and its groups; other tools still work", { timeout: 30_000 }, async (t) => {
  hub.forbidden.set("lab", ["chemists", "lab-admins"]);
  t.after(() => hub.forbidden.delete("lab"));
  const alone = spawnBridge(t, env("lab"));
  await assert.rejects(alone.client.connect(alone.transport), /Access to tool lab was denied: it requires membership in group chemists or lab-admins/);
  const both = spawnBridge(t, env("mcpdemo,lab"));
  await both.client.connect(both.transport);
  const names = (await both.client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes("mcpdemo_add") && !names.some((n) => n.startsWith("lab_")));
  const denied = await both.client.callTool({ name: "lab_add", arguments: { a: 1, b: 2 } });
  assert.equal(denied.isError, true);
  assert.match(text(denied), /tool lab was denied: it requires membership in group chemists or lab-admins/);
  assert.equal(text(await both.client.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 2 } })), "3");
});

test("a tool that is down is retried with backoff, then named in an isError result; when it is back the host hears of it", { timeout: 30_000 }, async (t) => {
  hub.down.add("lab");
  t.after(() => hub.down.delete("lab"));
  const bridge = spawnBridge(t, env("mcpdemo,lab"));
  let changed: () => void = () => {};
  const listChanged = new Promise<void>((done) => (changed = done));
  bridge.client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  const hitsBefore = hub.hits.get("lab") ?? 0;
  await bridge.client.connect(bridge.transport);
  assert.equal((hub.hits.get("lab") ?? 0) - hitsBefore, 4, "one try and three retries");
  const result = await bridge.client.callTool({ name: "lab_add", arguments: { a: 1, b: 2 } });
  assert.equal(result.isError, true);
  assert.match(
    text(result),
    /^Tool lab is unavailable at http:\/\/127\.0\.0\.1:\d+ \(HTTP 503: Tool session is starting; try again\); gave up after 4 attempts$/,
  );
  assert.equal(text(await bridge.client.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 2 } })), "3");
  hub.down.delete("lab");
  const names = (await bridge.client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes("lab_add"));
  await listChanged;
  assert.equal(text(await bridge.client.callTool({ name: "lab_add", arguments: { a: 1, b: 2 } })), "lab: 3");
});

test("one tool going down after start: its calls answer isError naming it", { timeout: 30_000 }, async (t) => {
  const bridge = spawnBridge(t, env("mcpdemo"));
  await bridge.client.connect(bridge.transport);
  hub.down.add("mcpdemo");
  t.after(() => hub.down.delete("mcpdemo"));
  const result = await bridge.client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
  assert.equal(result.isError, true);
  assert.match(text(result), /^Tool mcpdemo is unavailable at .+; gave up after 4 attempts$/);
  await assert.rejects(bridge.client.listTools(), /Tool mcpdemo is unavailable/);
});

test("a gateway that forgot the session (restart): the bridge re-initialises once, transparently", { timeout: 30_000 }, async (t) => {
  const bridge = spawnBridge(t, env("mcpdemo,lab"));
  await bridge.client.connect(bridge.transport);
  assert.equal(text(await bridge.client.callTool({ name: "mcpdemo_add", arguments: { a: 1, b: 2 } })), "3");
  hub.restart();
  assert.equal(text(await bridge.client.callTool({ name: "mcpdemo_add", arguments: { a: 2, b: 2 } })), "4");
  assert.equal(text(await bridge.client.callTool({ name: "lab_add", arguments: { a: 2, b: 2 } })), "lab: 4");
  await bridge.waitForStderr(/mcpdemo: session ended on the gateway; starting a new one/);
});

test("no gateway at all: initialize fails naming the tool and the network error", { timeout: 30_000 }, async (t) => {
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((done) => closed.close(() => done()));
  const bridge = spawnBridge(t, env("mcpdemo", { HUB_API: `http://127.0.0.1:${port}` }));
  await assert.rejects(
    bridge.client.connect(bridge.transport),
    /Tool mcpdemo is unavailable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); gave up after 4 attempts/,
  );
});
