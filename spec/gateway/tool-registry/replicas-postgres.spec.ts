// Issue 37 on PostgreSQL: two replicas on one database (no data dir), tools added, changed,
// removed and imported by `hub_gateway tool … --store URL` while SDK clients hold sessions.
import { test } from "node:test";
import { PostgresRecordStore } from "../../../lib/gateway/store/postgres-record-store.ts";
import { POSTGRES_SKIP, postgresCluster } from "../../helpers/postgres.ts";
import { registryScenario } from "./replicas.ts";

test("tools registered by script reach both replicas on one PostgreSQL database", { skip: POSTGRES_SKIP, timeout: 120_000 }, async (t) => {
  const cluster = await postgresCluster();
  const url = await cluster.database();
  const open = (): Promise<PostgresRecordStore> => PostgresRecordStore.open({ url, password: cluster.password });
  const stores: [PostgresRecordStore, PostgresRecordStore] = [await open(), await open()];
  t.after(() => Promise.all(stores.map((s) => s.close())));
  await registryScenario(t, stores, ["--store", url], { HUBMCP_STORE_PASSWORD: cluster.password });
});
