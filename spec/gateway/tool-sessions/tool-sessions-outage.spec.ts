// A replica stopping and the database stopping end no session: two hub_gateway processes on
// one PostgreSQL database, a person's MCP session on a `url` revision opened on A and
// continued on B; A is stopped (`kill`, SIGTERM: it stops its tool sessions), the database is
// stopped (B answers 503) and started again, and the session's next call on B is answered
// in the same upstream session, its record still in the database.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../../cli/hub_gateway.ts";
import { PostgresRecordStore } from "../../../lib/gateway/store/postgres-record-store.ts";
import { recordingIo as cli } from "../../helpers/cli-io.ts";
import { freePort, ROOT, spawnCli, tempDir } from "../../helpers/launcher-fixtures.ts";
import { POSTGRES_SKIP, postgresCluster } from "../../helpers/postgres.ts";
import { FAKE_TOOL, post, rpc } from "../helpers.ts";

const GATEWAY = [process.execPath, "--import", "tsx", join(ROOT, "cli", "hub_gateway.ts")];
const INITIALIZE = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } });

test("a url revision's session outlives the replica that opened it and a database restart", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const storeEnv = { HUBMCP_STORE_PASSWORD: cluster.password };
  let databaseUp = true;
  t.after(async () => {
    if (!databaseUp) await cluster.start();
  });
  assert.equal(await run(["user", "add", "ada", "--password-stdin", "--store", url], storeEnv, cli("correct horse\n")), 0);
  const made = cli();
  assert.equal(await run(["token", "create", "ada", "--store", url], storeEnv, made), 0);
  const bearer = made.lines[0]!;

  // The url revision's server: the fake tool server, run by the spec, not by a gateway.
  const env = { ...process.env, ...storeEnv, NODE_V8_COVERAGE: "" };
  const tool = spawnCli(t, [], env, ROOT, [process.execPath, FAKE_TOOL]);
  const toolUrl = (JSON.parse((await tool.waitFor(/\{.*\}\n/))[0]) as { url: string }).url;
  const dir = tempDir(t, "hubmcp-pg-outage-");
  const [portA, portB] = [await freePort(), await freePort()];
  const config = join(dir, "gateway.json");
  // No lookup cache: every call of B asks the database, so the outage is met at once.
  const limits = { lookupCacheSeconds: 0 };
  writeFileSync(
    config,
    JSON.stringify({ publicUrl: `http://127.0.0.1:${portA}`, store: url, tools: { fake: { revisions: { default: { url: toolUrl } } } }, limits }),
  );
  const [a, b] = [portA, portB].map((port) => spawnCli(t, ["--config", config, "--port", String(port)], env, ROOT, GATEWAY));
  await Promise.all([a!.waitFor(/ready at/), b!.waitFor(/ready at/)]);
  const mcp = (port: number): string => `http://127.0.0.1:${port}/api/mcp/fake/mcp`;

  const opened = await post(mcp(portA), bearer, INITIALIZE);
  assert.equal(opened.status, 200);
  const session = opened.headers.get("mcp-session-id")!;
  await opened.arrayBuffer();
  const seen = async (): Promise<{ status: number; body: string }> => {
    const res = await post(mcp(portB), bearer, rpc("seen", {}, 2), { "mcp-session-id": session });
    return { status: res.status, body: await res.text() };
  };
  assert.equal((await seen()).status, 200);

  a!.child.kill("SIGTERM");
  assert.equal((await a!.exit).code, 0);
  await cluster.stop();
  databaseUp = false;
  assert.equal((await seen()).status, 503);
  await cluster.start();
  databaseUp = true;

  const after = await seen();
  assert.equal(after.status, 200, after.body);
  assert.equal((JSON.parse(after.body) as { result: { session: string } }).result.session, "up-1");
  const store = await PostgresRecordStore.open({ url, password: cluster.password });
  try {
    assert.equal((await store.list("tool-sessions")).length, 1);
  } finally {
    await store.close();
  }
  assert.doesNotMatch(b!.stderr(), /internal error/);
});
