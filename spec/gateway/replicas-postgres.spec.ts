// Two hub_gateway processes on one PostgreSQL database and no data dir: a session opened
// on one continues on the other, OAuth tokens from one are honoured by the other, a CLI
// revocation reaches both within lookupCacheSeconds, a replica SIGKILLed loses nothing
// committed, and the database stopped and started again is a 503 then service, without
// a restart.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { run } from "../../cli/hub_gateway.ts";
import { recordingIo as cli } from "../helpers/cli-io.ts";
import { PostgresRecordStore } from "../../lib/gateway/store/postgres-record-store.ts";
import { alive, freePort, ROOT, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";
import { POSTGRES_SKIP, postgresCluster } from "../helpers/postgres.ts";
import { obtainTokens, token, type Tokens } from "./oauth/harness.ts";
import { FAKE_TOOL, post, rpc } from "./helpers.ts";

const GATEWAY = [process.execPath, "--import", "tsx", join(ROOT, "cli", "hub_gateway.ts")];

test("two replicas on one Postgres database and no data dir", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const storeEnv = { HUBMCP_STORE_PASSWORD: cluster.password };
  const store = await PostgresRecordStore.open({ url, password: cluster.password });
  let databaseUp = true;
  t.after(async () => {
    if (!databaseUp) await cluster.start();
    // Tool sessions are their own process groups: a SIGKILLed replica leaves its own behind.
    for (const { value } of await store.list<{ pid?: number }>("tool-sessions")) if (value.pid && alive(value.pid)) process.kill(-value.pid, "SIGKILL");
    await store.close();
  });

  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", "--store", url], storeEnv, cli("correct horse\n")), 0);
  const apiTokens: Array<{ id: string; token: string }> = [];
  for (let i = 0; i < 3; i++) {
    const made = cli();
    assert.equal(await run(["token", "create", "ada", "--store", url], storeEnv, made), 0);
    apiTokens.push({ token: made.lines[0]!, id: /token (\S+) created/.exec(made.errors[0]!)![1]! });
  }

  const dir = tempDir(t, "hubmcp-pg-replicas-");
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${portA}`;
  const config = join(dir, "gateway.json");
  writeFileSync(
    config,
    JSON.stringify({
      publicUrl,
      store: url,
      tools: { fake: { revisions: { default: { command: [process.execPath, FAKE_TOOL] } } } },
      limits: { lookupCacheSeconds: 1 },
    }),
  );
  // The replicas run without coverage: the same files are covered in-process.
  const env = { ...process.env, ...storeEnv, NODE_V8_COVERAGE: "" };
  const [a, b] = [portA, portB].map((port) => spawnCli(t, ["--config", config, "--port", String(port)], env, ROOT, GATEWAY));
  await Promise.all([a!.waitFor(/ready at/), b!.waitFor(/ready at/)]);
  const A = `http://127.0.0.1:${portA}`;
  const B = `http://127.0.0.1:${portB}`;
  const mcp = (base: string) => `${base}/api/mcp/fake/mcp`;

  // A session opened on A continues on B.
  const opened = await post(
    mcp(A),
    apiTokens[0]!.token,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  assert.equal(opened.status, 200);
  const session = opened.headers.get("mcp-session-id")!;
  await opened.arrayBuffer();
  // B forwards to the tool session A started, with the upstream session A's initialize opened.
  const continued = await post(mcp(B), apiTokens[0]!.token, rpc("seen", {}, 2), { "mcp-session-id": session });
  assert.equal(continued.status, 200);
  assert.equal(((await continued.json()) as { result: { session: string } }).result.session, "up-1");

  // OAuth: registered and signed in on A, refreshed on B, used on A.
  const { clientId, tokens } = await obtainTokens(A, mcp(publicUrl));
  const refreshed = await token(B, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
  assert.equal(refreshed.status, 200);
  const next = (await refreshed.json()) as Tokens;
  assert.equal((await post(mcp(A), next.access_token, rpc("ping"), { "mcp-session-id": session })).status, 200);

  // A revocation by the CLI reaches both replicas within lookupCacheSeconds (1 s; the bound here is generous).
  const revoked = apiTokens[1]!;
  for (const base of [A, B]) assert.equal((await post(mcp(base), revoked.token, rpc("ping"))).status, 200);
  assert.equal(await run(["token", "revoke", revoked.id, "--store", url], storeEnv, cli()), 0);
  for (const base of [A, B]) {
    const deadline = Date.now() + 10_000;
    let status = 0;
    while ((status = (await post(mcp(base), revoked.token, rpc("ping"))).status) !== 401 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(status, 401);
  }

  // A replica SIGKILLed right after committing a refresh: the other honours what it committed.
  const onA = await token(A, { grant_type: "refresh_token", client_id: clientId, refresh_token: next.refresh_token });
  assert.equal(onA.status, 200);
  const committed = (await onA.json()) as Tokens;
  a!.child.kill("SIGKILL");
  await a!.exit;
  assert.equal((await post(mcp(B), committed.access_token, rpc("ping"))).status, 200);
  const afterKill = await token(B, { grant_type: "refresh_token", client_id: clientId, refresh_token: committed.refresh_token });
  assert.equal(afterKill.status, 200);
  await afterKill.arrayBuffer();

  // The database stopped: B answers 503 with Retry-After for what it must look up, and no 500.
  const unseen = apiTokens[2]!.token;
  await cluster.stop();
  databaseUp = false;
  const down = await post(mcp(B), unseen, rpc("ping"));
  assert.equal(down.status, 503);
  assert.equal(down.headers.get("retry-after"), "5");
  await down.arrayBuffer();
  const tokenDown = await token(B, { grant_type: "refresh_token", client_id: clientId, refresh_token: "x" });
  assert.equal(tokenDown.status, 503);
  await tokenDown.arrayBuffer();
  // Started again: the same process serves, no restart.
  await cluster.start();
  databaseUp = true;
  assert.equal((await post(mcp(B), unseen, rpc("ping"))).status, 200);
  assert.equal(b!.child.exitCode, null);
  assert.doesNotMatch(b!.stderr(), /internal error/);
});

test("two replicas racing on one refresh token: only one wins", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const storeEnv = { HUBMCP_STORE_PASSWORD: cluster.password };
  assert.equal(await run(["user", "add", "ada", "--groups", "staff", "--password-stdin", "--store", url], storeEnv, cli("correct horse\n")), 0);
  const dir = tempDir(t, "hubmcp-pg-race-");
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${portA}`;
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ publicUrl, store: url, tools: { fake: { revisions: { default: { command: [process.execPath, FAKE_TOOL] } } } } }));
  const env = { ...process.env, ...storeEnv, NODE_V8_COVERAGE: "" };
  const replicas = [portA, portB].map((port) => spawnCli(t, ["--config", config, "--port", String(port)], env, ROOT, GATEWAY));
  await Promise.all(replicas.map((r) => r.waitFor(/ready at/)));
  // Each round is a fresh sign-in: the loser of a race presents a used refresh token, which
  // (as reuse) revokes the family, so the winner's new token is dead too.
  for (let round = 0; round < 3; round++) {
    const { clientId, tokens } = await obtainTokens(publicUrl, `${publicUrl}/api/mcp/fake/mcp`);
    const answers = await Promise.all(
      [portA, portB].map((port) =>
        token(`http://127.0.0.1:${port}`, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token }),
      ),
    );
    const won = answers.filter((r) => r.status === 200);
    assert.equal(won.length, 1, `round ${round}: ${answers.map((r) => r.status).join(", ")}`);
    const next = ((await won[0]!.json()) as Tokens).refresh_token;
    for (const r of answers) if (r.status !== 200) assert.equal(((await r.json()) as { error: string }).error, "invalid_grant");
    const after = await token(publicUrl, { grant_type: "refresh_token", client_id: clientId, refresh_token: next });
    assert.equal(after.status, 400, "the family is revoked once a used refresh token was presented");
    await after.arrayBuffer();
  }
});
