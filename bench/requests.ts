// What the rows send: one JSON-RPC `tools/call add`, its REST twin, and the handshake that
// opens a session. Every server row answers the same call so the figures compare.
import type { Target } from "./load.ts";

export const PROTOCOL_VERSION = "2025-11-25";

export const CALL_ADD = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
export const REST_ADD = JSON.stringify({ a: 2, b: 3 });
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "hubmcp-bench", version: "1.0.0" } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

/** What MCP clients send with every POST (MCP basic/transports); the baseline ignores it. */
const MCP_ACCEPT = { accept: "application/json, text/event-stream" };
const JSON_HEADERS = { "content-type": "application/json", ...MCP_ACCEPT };

export const targets = {
  callAdd: (port: number): Target => ({ port, path: "/mcp", body: CALL_ADD, headers: MCP_ACCEPT }),
  restAdd: (port: number): Target => ({ port, path: "/tools/add", body: REST_ADD }),
  initialize: (port: number): Target => ({ port, path: "/mcp", body: INITIALIZE, headers: MCP_ACCEPT }),
  sessionCallAdd: (port: number, sessionId: string): Target => ({
    port,
    path: "/mcp",
    body: CALL_ADD,
    headers: { ...MCP_ACCEPT, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
  }),
};

async function post(port: number, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", body, headers: { ...JSON_HEADERS, ...headers } });
}

/** Runs the MCP handshake once and returns the session id the server minted. */
export async function openSession(port: number): Promise<string> {
  const res = await post(port, "/mcp", INITIALIZE);
  const id = res.headers.get("mcp-session-id");
  await res.arrayBuffer();
  if (res.status !== 200 || !id) throw new Error(`initialize failed: HTTP ${res.status}`);
  const ack = await post(port, "/mcp", INITIALIZED, { "mcp-session-id": id, "mcp-protocol-version": PROTOCOL_VERSION });
  await ack.arrayBuffer();
  return id;
}

/** One request before the load, so a server answering wrongly fails the run instead of looking fast. */
export async function probe(target: Target, expect: (body: unknown) => boolean): Promise<void> {
  const res = await post(target.port, target.path, target.body, target.headers);
  const body: unknown = await res.json();
  if (res.status !== 200 || !expect(body)) throw new Error(`${target.path} answered HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null;

export const expectSum = {
  rpc: (body: unknown): boolean => {
    const result = isObj(body) && isObj(body.result) ? body.result : null;
    const first = result && Array.isArray(result.content) ? (result.content[0] as unknown) : null;
    return isObj(first) && first.text === "5" && result?.isError === false;
  },
  rest: (body: unknown): boolean => isObj(body) && body.result === "5",
};
