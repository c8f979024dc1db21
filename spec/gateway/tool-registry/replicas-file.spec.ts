// Issue 37 on the file store: two replicas on one data dir, tools added, changed, removed
// and imported by `hub_gateway tool …` while SDK clients hold sessions.
import { test } from "node:test";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";
import { registryScenario } from "./replicas.ts";

test("tools registered by script reach both replicas on one data dir", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-registry-");
  await registryScenario(t, [await FileRecordStore.open(dir), await FileRecordStore.open(dir)], ["--data-dir", dir]);
});
