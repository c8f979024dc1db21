// Who hears a caller's notification is one rule for both relays (route-moves.ts
// notifyServers): the same table sent through hub_bridge's relay and through /mcp, to the
// same two tool servers, is heard alike — `initialized` by none, a cancellation by the server
// running that request under the id it knows it by, one naming no request by none, anything
// else by every started server. The one difference is an input of the rule's: a cancellation
// of a request not running here goes to no server from hub_bridge (its calls all run in its
// process) and to every started tool from /mcp (the request may run on another replica).
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { type TestContext, test } from "node:test";
import { Upstream } from "../../lib/bridge/upstream.ts";
import { Relay } from "../../lib/federation/relay.ts";
import { post, rpc, startHarness } from "../gateway/helpers.ts";
import { reply, upstreamStub } from "../gateway/upstream-stub.ts";

type Params = Record<string, unknown> | undefined;
const LABELS = ["alpha", "beta"] as const;

/** Two tool servers recording each notification they hear; `wait` holds its call until cancelled. */
async function toolServers(t: TestContext) {
  const heard: Array<{ server: string; method: string; params: Params }> = [];
  const events = new EventEmitter();
  const urls: Record<string, string> = {};
  for (const server of LABELS) {
    const held = new Map<string, () => void>();
    const stub = await upstreamStub(t, (msg, req, res) => {
      if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
      if (msg.id === undefined && typeof msg.method === "string") {
        heard.push({ server, method: msg.method, params: msg.params });
        events.emit("heard");
        if (msg.method === "notifications/cancelled") held.get(JSON.stringify(msg.params?.requestId))?.();
        return void res.writeHead(202).end();
      }
      if (msg.method === "initialize") {
        res.setHeader("mcp-session-id", `${server}-session`);
        return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: server, version: "1" } });
      }
      if (msg.method === "tools/list") return reply(res, msg, { tools: ["wait", "echo"].map((name) => ({ name, inputSchema: { type: "object" } })) });
      if (msg.method === "tools/call" && msg.params?.name === "wait") {
        // Held until its cancellation: a tool server answers a call it cancelled with 202 and nothing.
        held.set(JSON.stringify(msg.id), () => res.writeHead(202).end());
        return void events.emit("started", { server, id: msg.id });
      }
      if (msg.method === "tools/call") return reply(res, msg, { content: [{ type: "text", text: server }] });
      res.writeHead(202).end();
    });
    urls[server] = stub.url;
  }
  return { heard, events, urls };
}

/** A caller of one relay: its notifications (resolved once sent on), and a call to start. */
interface Caller {
  notify(method: string, params?: Params): Promise<void>;
  call(name: string, id: string): Promise<unknown>;
}

async function bridgeCaller(t: TestContext, urls: Record<string, string>): Promise<Caller> {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const context = {
    token: "t",
    retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
    agents,
    onServerMessage: (server: Upstream, message: Record<string, unknown>) => relay.fromServer(server, message),
    log: () => {},
  };
  const servers = LABELS.map((label) => new Upstream({ label, tool: label, revision: null, endpoint: `${urls[label]}mcp` }, context));
  const relay: Relay<Upstream> = new Relay({ servers, send: () => {}, explain: (s) => `${s.label} failed`, serverInfo: { name: "spec", version: "1" } });
  t.after(async () => {
    relay.close();
    await Promise.all(servers.map((s) => s.close()));
    agents.http.destroy();
  });
  const init = await relay.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  assert.ok(init && "result" in init);
  return {
    notify: (method, params) => relay.notified(method, params),
    call: (name, id) => relay.handle({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }),
  };
}

async function connectorCaller(t: TestContext, urls: Record<string, string>): Promise<Caller> {
  const tools = Object.fromEntries(LABELS.map((label) => [label, { revisions: { default: { url: urls[label] } } }]));
  const h = await startHarness(t, { tools });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  return {
    notify: async (method, params) => {
      const answer = await post(url, h.tokens.alice, JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }), session);
      assert.equal(answer.status, 202);
    },
    call: async (name, id) => (await post(url, h.tokens.alice, rpc("tools/call", { name, arguments: {} }, id), session)).text(),
  };
}

type Relays = "bridge" | "mcp";
/** What each server heard of one notification: `server method params`, in server order. */
type Heard = (running: { server: string; id: unknown }) => string[];
const CASES: Array<{ what: string; method: string; params?: Params; heard: Record<Relays, Heard> }> = [
  { what: "initialized", method: "notifications/initialized", heard: { bridge: () => [], mcp: () => [] } },
  {
    what: "anything else",
    method: "notifications/roots/list_changed",
    heard: {
      bridge: () => LABELS.map((s) => `${s} notifications/roots/list_changed undefined`),
      mcp: () => LABELS.map((s) => `${s} notifications/roots/list_changed undefined`),
    },
  },
  {
    what: "a cancellation of a running call",
    method: "notifications/cancelled",
    params: { requestId: "running", reason: "changed my mind" },
    heard: {
      bridge: (r) => [`${r.server} notifications/cancelled ${JSON.stringify({ requestId: r.id, reason: "changed my mind" })}`],
      mcp: (r) => [`${r.server} notifications/cancelled ${JSON.stringify({ requestId: r.id, reason: "changed my mind" })}`],
    },
  },
  {
    what: "a cancellation of a request not running here",
    method: "notifications/cancelled",
    params: { requestId: "nowhere" },
    heard: { bridge: () => [], mcp: () => LABELS.map((s) => `${s} notifications/cancelled {"requestId":"nowhere"}`) },
  },
  { what: "a cancellation naming no request", method: "notifications/cancelled", params: { reason: "?" }, heard: { bridge: () => [], mcp: () => [] } },
];

for (const relay of ["bridge", "mcp"] as const) {
  test(`${relay}: a caller's notifications are heard as the relays' one rule says`, { timeout: 60_000 }, async (t) => {
    const { heard, events, urls } = await toolServers(t);
    const caller = await (relay === "bridge" ? bridgeCaller : connectorCaller)(t, urls);
    // Both servers started for this caller (/mcp starts a tool's session at its first use).
    for (const s of LABELS) await caller.call(`${s}_echo`, `echo-${s}`);
    let markers = 0;
    for (const c of CASES) {
      // A call running on beta, for the cancellation to find (its answer awaited at the end).
      const started = once(events, "started");
      const calling = caller.call("beta_wait", "running");
      const [running] = (await started) as [{ server: string; id: unknown }];
      const from = heard.length;
      await caller.notify(c.method, c.params);
      // A marker every server hears: once both heard it, whatever the case's notification reached has arrived.
      const marker = { _meta: { marker: ++markers } };
      await caller.notify("notifications/roots/list_changed", marker);
      while (heard.filter((h) => JSON.stringify(h.params) === JSON.stringify(marker)).length < LABELS.length) await once(events, "heard");
      const got = heard
        .slice(from)
        .filter((h) => JSON.stringify(h.params) !== JSON.stringify(marker))
        .map((h) => `${h.server} ${h.method} ${JSON.stringify(h.params)}`)
        .sort();
      assert.deepEqual(got, c.heard[relay](running), c.what);
      // The running call ends before the next case: cancelled now if the case did not.
      if (!got.some((line) => line.startsWith(`${running.server} notifications/cancelled`) && line.includes(JSON.stringify(running.id)))) {
        await caller.notify("notifications/cancelled", { requestId: "running" });
      }
      await calling;
    }
  });
}
