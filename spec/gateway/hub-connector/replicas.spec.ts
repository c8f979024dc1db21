// `/mcp` with no affinity: two hub_gateway processes on one PostgreSQL store, a client sent
// to either. A session initialized on A lists and calls on B, continues on A in the same MCP
// session on the tool server (one initialize there for this client), and a DELETE on B ends
// it on A and on the tool server.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { recordingIo as cli } from "../../helpers/cli-io.ts";
import { freePort, ROOT, spawnCli, tempDir } from "../../helpers/launcher-fixtures.ts";
import { POSTGRES_SKIP, postgresCluster } from "../../helpers/postgres.ts";
import { post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

const GATEWAY = [process.execPath, "--import", "tsx", join(ROOT, "cli", "hub_gateway.ts")];

test("/mcp needs no affinity: a session opened on one replica continues on another", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const initialized: string[] = [];
  const deleted: string[] = [];
  const stub = await upstreamStub(t, (msg, req, res) => {
    if (req.method === "DELETE") return void (deleted.push(String(req.headers["mcp-session-id"])), res.writeHead(200).end());
    if (msg.method === "initialize") {
      const name = (msg.params!.clientInfo as { name: string }).name;
      initialized.push(name);
      res.setHeader("mcp-session-id", `up-${name}-${initialized.length}`);
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    }
    if (msg.method === "tools/list") return reply(res, msg, { tools: [{ name: "where", inputSchema: { type: "object" } }] });
    // The MCP session each call arrives in, as its text.
    if (msg.method === "tools/call") return reply(res, msg, { content: [{ type: "text", text: String(req.headers["mcp-session-id"]) }] });
    res.writeHead(202).end();
  });

  const cluster = await postgresCluster();
  const url = await cluster.database();
  const storeEnv = { HUBMCP_STORE_PASSWORD: cluster.password };
  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", "--store", url], storeEnv, cli("correct horse\n")), 0);
  const made = cli();
  assert.equal(await run(["token", "create", "ada", "--store", url], storeEnv, made), 0);
  const token = made.lines[0]!;

  const dir = tempDir(t, "hubmcp-mcp-replicas-");
  const [portA, portB] = [await freePort(), await freePort()];
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ publicUrl: `http://127.0.0.1:${portA}`, store: url, tools: { stub: { revisions: { default: { url: stub.url } } } } }));
  // The replicas run without coverage: the same files are covered in-process.
  const env = { ...process.env, ...storeEnv, NODE_V8_COVERAGE: "" };
  const [a, b] = [portA, portB].map((port) => spawnCli(t, ["--config", config, "--port", String(port)], env, ROOT, GATEWAY));
  await Promise.all([a!.waitFor(/ready at/), b!.waitFor(/ready at/)]);
  const A = `http://127.0.0.1:${portA}/mcp`;
  const B = `http://127.0.0.1:${portB}/mcp`;

  const init = await post(A, token, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ada", version: "1" } }));
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };

  const listed = await post(B, token, rpc("tools/list", {}, 2), session);
  assert.equal(listed.status, 200);
  const names = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((x) => x.name);
  assert.ok(names.includes("stub_where"), names.join(", "));

  const where = async (base: string, id: number): Promise<string> => {
    const res = await post(base, token, rpc("tools/call", { name: "stub_where", arguments: {} }, id), session);
    assert.equal(res.status, 200);
    return ((await res.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
  };
  const onB = await where(B, 3);
  assert.match(onB, /^up-ada-/);
  // A continues in the MCP session B opened on the tool server with the client's own initialize params.
  assert.equal(await where(A, 4), onB);
  assert.equal(await where(B, 5), onB);
  assert.deepEqual(
    initialized.filter((name) => name === "ada"),
    ["ada"],
    "one MCP session on the tool server for this client",
  );

  const gone = await fetch(B, { method: "DELETE", headers: { authorization: `Bearer ${token}`, ...session } });
  assert.equal(gone.status, 204);
  assert.ok(deleted.includes(onB), "ended on the tool server");
  const after = await post(A, token, rpc("ping", {}, 6), session);
  assert.equal(after.status, 404, "ended on A too");
  assert.equal(((await after.json()) as { error: string }).error, "unknown_session");
});

test("a cancellation for a request this replica is not running reaches every tool the session started", { timeout: 60_000 }, async (t) => {
  const cancelled: unknown[] = [];
  let heard: () => void = () => {};
  const arrived = new Promise<void>((done) => (heard = done));
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize") {
      res.setHeader("mcp-session-id", "up-1");
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    }
    if (msg.method === "tools/list") return reply(res, msg, { tools: [{ name: "where", inputSchema: { type: "object" } }] });
    if (msg.method === "tools/call") return reply(res, msg, { content: [{ type: "text", text: "here" }] });
    if (msg.method === "notifications/cancelled") cancelled.push(msg.params!.requestId), heard();
    res.writeHead(202).end();
  });
  const h = await startHarness(t, { tools: { stub: { revisions: { default: { url: stub.url } } } } });
  const url = `${h.base}/mcp`;
  const init = await post(url, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }));
  await init.arrayBuffer();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await (await post(url, h.tokens.alice, rpc("tools/call", { name: "stub_where", arguments: {} }, 2), session)).arrayBuffer();
  // Request 7 runs on another replica, as far as this one knows.
  const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
  assert.equal((await post(url, h.tokens.alice, cancel, session)).status, 202);
  await arrived;
  assert.deepEqual(cancelled, [7]);
});
