// Minting an upstream session as any MCP client does: `initialize`, then
// `notifications/initialized` in the new session, the id read from the answer's
// Mcp-Session-Id whether the answer is JSON or an event stream (comments, a notification
// first, ids, retry, CRLF), and no id at all for a server that keeps no sessions. A server
// that does not open one is a prompt 502. The gateway never opens `GET /mcp` to find a
// session. A tiny in-spec tool server (`url` revisions) writes the bytes; the real
// start_mcp and the official SDK's server are covered in section-c.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub, type RpcMessage } from "../upstream-stub.ts";

const INIT_RESULT = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } };

/** What the stub heard, per mode: method, session header and protocol-version header. */
type Heard = Array<{ method: string; session: string | null; version: string | null }>;

function initialize(mode: string, msg: RpcMessage, res: import("node:http").ServerResponse): void {
  const result = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: INIT_RESULT });
  switch (mode) {
    case "json":
      res.setHeader("mcp-session-id", "up-json");
      return reply(res, msg, INIT_RESULT);
    case "stream":
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "up-stream" });
      res.write(`\uFEFF: hello\r\n\r\nevent: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\r\n\r\nretry: 10\r`);
      return void res.end(`\nid: 4\r\ndata: ${result}\r\n\r\n`);
    case "sessionless":
      return reply(res, msg, INIT_RESULT);
    case "refused":
      return void res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32600, message: "no" } }));
    case "error":
      return void res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: "no" } }));
    case "huge":
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "up-huge" });
      return void res.write(`data: ${"x".repeat(2 * 1024 * 1024)}`);
    case "ended":
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "up-ended" });
      return void res.end(": nothing\n\n");
    default:
      return void res.destroy(); // "cut": the connection drops before any answer
  }
}

test("an upstream session is minted with initialize, however the answer is spelt; a server that opens none is a prompt 502", { timeout: 30_000 }, async (t) => {
  const heard: Record<string, Heard> = {};
  const up = await upstreamStub(t, (msg, req, res) => {
    const mode = decodeURIComponent((req.url ?? "").split("/")[1] ?? "");
    const header = (name: string): string | null => (typeof req.headers[name] === "string" ? (req.headers[name] as string) : null);
    (heard[mode] ??= []).push({ method: `${req.method} ${msg.method ?? req.url}`, session: header("mcp-session-id"), version: header("mcp-protocol-version") });
    if (req.method !== "POST") return void res.writeHead(405).end();
    if (msg.method === "initialize") return initialize(mode, msg, res);
    if (msg.id === undefined) return void res.writeHead(202).end();
    reply(res, msg, { session: header("mcp-session-id") });
  });
  const modes = ["json", "stream", "sessionless", "refused", "error", "huge", "ended", "cut"];
  const tools = Object.fromEntries(modes.map((mode) => [mode, { revisions: { default: { url: `${up.url}${mode}/` } } }]));
  const h = await startHarness(t, { tools });
  const bootstrap = (tool: string): Promise<Response> => fetch(`${h.base}/api/mcp/${tool}`, { headers: { authorization: `Bearer ${h.tokens.alice}` } });

  for (const [mode, session] of [
    ["json", "up-json"],
    ["stream", "up-stream"],
    ["sessionless", null],
  ] as const) {
    const ok = await bootstrap(mode);
    assert.equal(ok.status, 200, mode);
    const body = await json(ok);
    assert.match(body.session, /^g1\./);
    const answer = await json(await post(body.endpoints.session, h.tokens.alice, rpc("whoami", {}, 7)));
    assert.deepEqual(answer.result, { session }, `${mode}: later calls run in the minted session`);
    assert.deepEqual(heard[mode], [
      { method: "POST initialize", session: null, version: null },
      { method: "POST notifications/initialized", session, version: "2025-11-25" },
      { method: "POST whoami", session, version: null },
    ]);
  }
  for (const [tool, code] of [
    ["refused", "no_upstream_session"],
    ["error", "no_upstream_session"],
    ["huge", "no_upstream_session"],
    ["ended", "no_upstream_session"],
    ["cut", "upstream_unavailable"],
  ]) {
    const res = await bootstrap(tool!);
    assert.equal(res.status, 502, tool);
    assert.equal((await json(res)).error, code, tool);
  }
  for (const [mode, seen] of Object.entries(heard))
    assert.ok(
      seen.every((s) => s.method.startsWith("POST ")),
      `${mode}: no GET /mcp to find a session`,
    );
});
