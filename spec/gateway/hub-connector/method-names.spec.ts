// Method names a client sends are data, never keys into an object's prototype: names of
// Object.prototype's members are unknown methods like any other (-32601), at /mcp (with a
// session and stateless), on a tool's own route, at the tool server itself and in hub_bridge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bridge } from "../../../lib/bridge/bridge.ts";
import { readBridgeConfig } from "../../../lib/bridge/config.ts";
import { server as demo } from "../../../fixtures/demo/app.ts";
import { serveApps } from "../../bridge/stand-in-gateway.ts";
import { json, post, rpc, startHarness } from "../helpers.ts";

const NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupSetter__",
  "tasks/__proto__",
  "notifications/constructor",
];
const V = "2026-07-28";
const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} };
const INIT = rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } });

/** Asks each path with a name that was never a method, then with each prototype name: the same answer. */
async function likeUnknown(where: string, ask: (method: string) => Promise<Response>): Promise<void> {
  const baseline = await ask("no/such/method");
  const expected = { status: baseline.status, code: (await json(baseline)).error?.code };
  assert.equal(expected.code, -32601, where);
  for (const method of NAMES) {
    const res = await ask(method);
    const body = await json(res);
    assert.deepEqual({ status: res.status, code: body.error?.code }, expected, `${where}: ${method} → ${JSON.stringify(body)}`);
  }
}

test("prototype member names are unknown methods at /mcp, on a tool's route and at the tool server", { timeout: 120_000 }, async (t) => {
  const h = await startHarness(
    t,
    { tools: { demo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } },
    { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } },
  );
  const hub = `${h.base}/mcp`;
  const own = `${h.base}/api/mcp/demo/mcp`;
  const opened = await post(hub, h.tokens.alice, INIT);
  const hubSession = opened.headers.get("mcp-session-id")!;
  await opened.text();
  const toolOpened = await post(own, h.tokens.alice, INIT);
  const toolSession = toolOpened.headers.get("mcp-session-id")!;
  await toolOpened.text();
  const direct = await demo.listen({ host: "127.0.0.1", port: 0 });
  t.after(() => direct.close());
  const directOpened = await post(`${direct.url}mcp`, undefined, INIT);
  const directSession = directOpened.headers.get("mcp-session-id")!;
  await directOpened.text();

  const stateless = (method: string): Record<string, string> => ({ "mcp-protocol-version": V, "mcp-method": method });
  await likeUnknown("/mcp", (m) => post(hub, h.tokens.alice, rpc(m), { "mcp-session-id": hubSession }));
  await likeUnknown("/mcp stateless", (m) => post(hub, h.tokens.alice, rpc(m, { _meta: meta }), stateless(m)));
  await likeUnknown("the tool's route", (m) => post(own, h.tokens.alice, rpc(m), { "mcp-session-id": toolSession }));
  await likeUnknown("the tool server", (m) => post(`${direct.url}mcp`, undefined, rpc(m), { "mcp-session-id": directSession }));
  await likeUnknown("the tool server, stateless", (m) => post(`${direct.url}mcp`, undefined, rpc(m, { _meta: meta }), stateless(m)));
  for (const method of NAMES) {
    // As a notification it is accepted and ignored, as any unknown notification.
    const note = await post(hub, h.tokens.alice, JSON.stringify({ jsonrpc: "2.0", method }), { "mcp-session-id": hubSession });
    assert.equal(note.status, 202, `notification ${method}`);
    await note.text();
  }
  const still = await post(hub, h.tokens.alice, rpc("tools/call", { name: "demo_add", arguments: { a: 1, b: 2 } }), { "mcp-session-id": hubSession });
  assert.match(await still.text(), /"text":"3"/, "the connector session goes on");
});

test("prototype member names are unknown methods in hub_bridge, with one tool and with several", { timeout: 60_000 }, async (t) => {
  const hub = await serveApps(t, { mcpdemo: demo, other: demo });
  for (const tools of ["mcpdemo", "mcpdemo,other"]) {
    const sent: Array<Record<string, any>> = [];
    const waiters: Array<{ id: number; done: (m: Record<string, any>) => void }> = [];
    const bridge = new Bridge(readBridgeConfig({ HUB_TOKEN: hub.token, HUB_API: hub.url, HUB_TOOLS: tools }), (m) => {
      const message = m as Record<string, any>;
      sent.push(message);
      for (const w of [...waiters]) if (message.id === w.id && !("method" in message)) waiters.splice(waiters.indexOf(w), 1), w.done(message);
    });
    t.after(() => bridge.close());
    let next = 1;
    const request = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, any>> => {
      const id = next++;
      const answered = new Promise<Record<string, any>>((done) => waiters.push({ id, done }));
      bridge.receive({ jsonrpc: "2.0", id, method, params });
      return answered;
    };
    assert.ok((await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } })).result);
    for (const method of NAMES) {
      const answer = await request(method);
      assert.equal(answer.error?.code, -32601, `${tools}: ${method} → ${JSON.stringify(answer)}`);
    }
    assert.deepEqual((await request("ping")).result, {});
  }
});
