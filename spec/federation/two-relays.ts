// The two relays side by side for specs that send both the same thing: two tool servers
// (in-process stubs recording each notification they hear), reached through hub_bridge's
// relay (lib/federation/relay.ts over bridge/upstream.ts) or through a gateway's /mcp.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { TestContext } from "node:test";
import { Upstream } from "../../lib/bridge/upstream.ts";
import { Relay } from "../../lib/federation/relay.ts";
import { post, rpc, startHarness } from "../gateway/helpers.ts";
import { reply, upstreamStub } from "../gateway/upstream-stub.ts";

const TOOLS = [
  { name: "wait", description: "Waits until cancelled.", inputSchema: { type: "object" } },
  { name: "echo", description: "Echoes the server's name back.", inputSchema: { type: "object" } },
];

export type Params = Record<string, unknown> | undefined;
export const LABELS = ["alpha", "beta"] as const;

/** Two tool servers recording each notification they hear; `wait` holds its call until cancelled. */
export async function toolServers(t: TestContext) {
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
      if (msg.method === "tools/list") return reply(res, msg, { tools: TOOLS });
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
export interface Caller {
  notify(method: string, params?: Params): Promise<void>;
  call(name: string, id: string): Promise<unknown>;
  /** A request answered: its result (or error). */
  request(method: string, params: Params, id: string): Promise<unknown>;
}

/** hub_bridge's relay over these endpoints (label → URL), as the bridge builds it but with no retries; closed when `t` ends. */
export function bridgeRelay(t: TestContext, endpoints: Record<string, string>, send: (message: unknown) => void): Relay<Upstream> {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const context = {
    token: "t",
    retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
    agents,
    onServerMessage: (server: Upstream, message: Record<string, unknown>) => relay.fromServer(server, message),
    log: () => {},
  };
  const servers = Object.entries(endpoints).map(([label, endpoint]) => new Upstream({ label, tool: label, revision: null, endpoint }, context));
  const relay: Relay<Upstream> = new Relay({ servers, send, explain: (s) => `${s.label} failed`, serverInfo: { name: "spec-relay", version: "1" } });
  t.after(async () => {
    relay.close();
    await Promise.all(servers.map((s) => s.close()));
    agents.http.destroy();
  });
  return relay;
}

export async function bridgeCaller(t: TestContext, urls: Record<string, string>): Promise<Caller> {
  const relay = bridgeRelay(t, Object.fromEntries(LABELS.map((label) => [label, `${urls[label]}mcp`])), () => {});
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
    request: async (method, params, id) => {
      const answer = (await relay.handle({ jsonrpc: "2.0", id, method, params }))!;
      return "result" in answer ? answer.result : answer.error;
    },
  };
}

export async function connectorCaller(t: TestContext, urls: Record<string, string>): Promise<Caller> {
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
    request: async (method, params, id) => {
      const answer = (await (await post(url, h.tokens.alice, rpc(method, params, id), { ...session, accept: "application/json" })).json()) as Record<
        string,
        unknown
      >;
      return "result" in answer ? answer.result : answer.error;
    },
  };
}
