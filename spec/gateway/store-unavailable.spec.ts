// The gateway on a Postgres store whose database goes away: requests that need the store
// get 503 with Retry-After (never 500, never a 401 that makes a client drop its token),
// requests the lookup cache can serve go on, and when the database is back the same
// process serves again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { gatewayAuthorizationServer } from "../../lib/gateway/identity/oauth-for-gateway.ts";
import { startGateway } from "../../lib/gateway/server.ts";
import { PostgresRecordStore } from "../../lib/gateway/store/postgres-record-store.ts";
import { POSTGRES_SKIP, postgresCluster } from "../helpers/postgres.ts";
import { fake, post, ROOT } from "./helpers.ts";

test("database down: 503 with Retry-After where the store is needed, cached lookups go on; back up: served again", { skip: POSTGRES_SKIP }, async (t) => {
  const cluster = await postgresCluster();
  const store = await PostgresRecordStore.open({ url: await cluster.database(), password: cluster.password });
  const accounts = new StoreAccountDirectory(store);
  const tokens = new ApiTokens(store, accounts);
  await accounts.add("alice", "pw", []);
  const cached = (await tokens.create("alice"))!.token;
  const unseen = (await tokens.create("alice"))!.token;
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } }, limits: { lookupCacheSeconds: 60 } }, ROOT);
  let publicUrl = "http://127.0.0.1";
  const authorizationServer = gatewayAuthorizationServer({ config, settings: config.oauth, store, accounts, apiTokens: tokens, publicUrl: () => publicUrl });
  const gw = await startGateway({ config, store, authorizationServer });
  publicUrl = gw.publicUrl;
  let restarted = true;
  // One hook, in this order even when an assertion failed with the database down.
  t.after(async () => {
    if (!restarted) await cluster.start();
    await gw.close();
    await store.close();
  });
  const call = (token: string) => post(`${gw.url}api/mcp/fake/tools/add`, token, '{"a":1}');

  // The first call starts the tool session; the second reads its record, which is then remembered.
  for (let i = 0; i < 2; i++) assert.equal((await call(cached)).status, 200);
  await cluster.stop();
  restarted = false;

  const served = await call(cached);
  assert.equal(served.status, 200);
  assert.equal(((await served.json()) as { result: string }).result, "add");

  const refused = await call(unseen);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "5");
  assert.equal(((await refused.json()) as { error: string }).error, "store_unavailable");

  const token = await fetch(`${gw.url}developer/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=refresh_token&refresh_token=x&client_id=c",
  });
  assert.equal(token.status, 503);
  assert.equal(token.headers.get("retry-after"), "5");
  assert.equal(((await token.json()) as { error: string }).error, "temporarily_unavailable");

  await cluster.start();
  restarted = true;
  assert.equal((await call(unseen)).status, 200);
});
