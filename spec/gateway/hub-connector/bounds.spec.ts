// The one-connector endpoint keeps the gateway's bounds (issue 20, points 6 and 9): a
// person's requests running on one tool server at once are capped there too, and a client
// that reads nothing from a flooding tool's stream pauses the tool instead of filling memory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { json, post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

const TOOLS = {
  tools: [
    { name: "slow", inputSchema: { type: "object" } },
    { name: "flood", inputSchema: { type: "object" } },
  ],
};
const INITIALIZED = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } };

test("through /mcp one person's calls on a tool server are bounded too (429 beyond), and others' go through", { timeout: 60_000 }, async (t) => {
  let hanging = 0;
  const waiters: Array<() => void> = [];
  const changed = (): void => waiters.splice(0).forEach((w) => w());
  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const stub = await upstreamStub(t, (msg, req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    // Only alice's calls hang (the gateway names the person it vouches for).
    if (msg.method !== "tools/call" || req.headers["x-forwarded-user"] !== "alice") return reply(res, msg, {});
    hanging++;
    changed();
  });
  const h = await startHarness(t, {
    tools: { shared: { revisions: { default: { url: stub.url } } } },
    limits: { ratePerSecond: 10_000, rateBurst: 10_000, upstreamRequestsPerUser: 2 },
  });
  const url = `${h.base}/mcp`;
  const session = async (token: string): Promise<Record<string, string>> => {
    const init = await post(url, token, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }));
    await init.text();
    return { "mcp-session-id": init.headers.get("mcp-session-id")! };
  };
  const alice = await session(h.tokens.alice);
  const names = (await json(await post(url, h.tokens.alice, rpc("tools/list"), alice))).result.tools.map((x: { name: string }) => x.name);
  assert.ok(names.includes("shared_slow"), names.join(", "));

  const ac = new AbortController();
  t.after(() => ac.abort());
  const statuses: number[] = [];
  const calls = Array.from({ length: 5 }, (_, i) =>
    fetch(url, {
      method: "POST",
      signal: ac.signal,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${h.tokens.alice}`, ...alice },
      body: rpc("tools/call", { name: "shared_slow", arguments: {} }, 100 + i),
    })
      .then(async (res) => {
        statuses.push(res.status);
        if (res.status === 429) assert.equal((await json(res)).error, "too_many_running");
        changed();
      })
      .catch(() => "aborted"),
  );
  await until(() => (hanging === 2 && statuses.length === 3) || hanging > 2);
  assert.equal(hanging, 2, "the tool server holds two of the person's calls, no more");
  assert.deepEqual(statuses, [429, 429, 429]);

  const bob = await session(h.tokens.bob);
  const other = await post(url, h.tokens.bob, rpc("tools/call", { name: "shared_slow", arguments: {} }, 7), bob);
  assert.equal(other.status, 200, "another person's call goes through");
  await other.text();
  ac.abort();
  await Promise.all(calls);
});

test("through /mcp a client that reads nothing from a flooding stream pauses the tool server", { timeout: 60_000 }, async (t) => {
  const MiB = 1024 * 1024;
  const frame = Buffer.from(
    `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(64 * 1024) } })}\n\n`,
  );
  let settle: (outcome: { blocked: boolean; written: number }) => void = () => {};
  const outcome = new Promise<{ blocked: boolean; written: number }>((resolve) => (settle = resolve));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") return reply(res, msg, INITIALIZED);
    if (msg.method === "tools/list") return reply(res, msg, TOOLS);
    if (msg.method !== "tools/call") return reply(res, msg, {});
    res.writeHead(200, { "content-type": "text/event-stream" });
    let written = 0;
    // Writes regardless of back-pressure: what the gateway does not read piles up here, in the tool server.
    const more = (): void => {
      res.write(frame);
      written += frame.length;
      if (res.writableLength >= 8 * MiB) return settle({ blocked: true, written });
      if (written >= 96 * MiB) return settle({ blocked: false, written });
      setImmediate(more);
    };
    more();
  });
  const h = await startHarness(t, { tools: { shared: { revisions: { default: { url: stub.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  await init.text();
  const session = init.headers.get("mcp-session-id")!;
  await (await post(url, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": session })).text();

  const socket = connect(h.gw.port, "127.0.0.1");
  t.after(() => socket.destroy());
  socket.pause(); // the attack: never read a byte of the answer
  const body = rpc("tools/call", { name: "shared_flood", arguments: {} }, 9);
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.tokens.alice}\r\nContent-Type: application/json\r\nMcp-Session-Id: ${session}\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const { blocked, written } = await outcome;
  assert.ok(blocked, `the tool server saw back-pressure (it wrote ${Math.round(written / MiB)} MiB)`);
});

test("an /mcp session keeps bounded initialize params: an oversized initialize is refused", { timeout: 30_000 }, async (t) => {
  const stub = await upstreamStub(t, (msg, _req, res) => reply(res, msg, msg.method === "initialize" ? INITIALIZED : {}));
  const h = await startHarness(t, { tools: { shared: { revisions: { default: { url: stub.url } } } } });
  const huge = await post(
    `${h.base}/mcp`,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x".repeat(70 * 1024), version: "1" } }),
  );
  assert.equal(huge.status, 400);
  assert.equal(huge.headers.get("mcp-session-id"), null);
  assert.match((await json(huge)).error.message, /initialize params are too large/);
});
