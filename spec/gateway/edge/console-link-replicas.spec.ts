// A console link opens once across every replica: two gateways on one PostgreSQL store, the
// same link opened on both at the same moment, and exactly one browser gets the cookie.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { PostgresRecordStore } from "../../../lib/gateway/store/postgres-record-store.ts";
import { POSTGRES_SKIP, postgresCluster } from "../../helpers/postgres.ts";
import { json, ROOT, stateRootFor } from "../helpers.ts";

test("a console link opens once across replicas sharing a PostgreSQL store", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const cluster = await postgresCluster();
  const store = await PostgresRecordStore.open({ url: await cluster.database(), password: cluster.password });
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("ada", "pw-ada");
  const token = (await new ApiTokens(store, accounts).create("ada"))!.token;
  await stateRootFor(t, store);
  const config = parseGatewayConfig({ tools: { demo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } }, ROOT);
  // The app child runs without coverage (see spec/gateway/sdk-client.spec.ts).
  const childEnv = { ...process.env, NODE_V8_COVERAGE: "" };
  const a = await startGateway({ config, store, childEnv });
  const b = await startGateway({ config, store, childEnv, publicUrl: a.publicUrl });
  t.after(async () => {
    await b.close();
    await a.close();
    await store.close();
  });

  for (let i = 0; i < 5; i++) {
    const info = await json(await fetch(`${a.url}api/mcp/demo`, { headers: { authorization: `Bearer ${token}` } }));
    const query = new URL(String(info.console_url)).search;
    const answers = await Promise.all([a.url, b.url].map((base) => fetch(`${base}console${query}`, { redirect: "manual" })));
    for (const answer of answers) await answer.arrayBuffer();
    assert.deepEqual(answers.map((r) => r.status).sort(), [303, 410], `link ${i}`);
  }
});
