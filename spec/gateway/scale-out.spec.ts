// Two gateway processes on one data dir, no sticky sessions: one SDK client session whose
// every request goes to the other replica than the one before (tools, elicitation, an
// async task). Then SIGTERM stops both, and with them every tool session child.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";
import { alive, ROOT, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";
import { stateRootFor } from "./helpers.ts";

const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const Any = z.object({}).passthrough();
const GATEWAY = [process.execPath, "--import", "tsx", join(ROOT, "cli", "hub_gateway.ts")];

test("two replicas on one data dir serve one client session alternately", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-gw-");
  const dataDir = join(dir, "data");
  const config = join(dir, "gateway.json");
  writeFileSync(config, JSON.stringify({ tools: { mcpdemo: { revisions: { default: { app: join(ROOT, "fixtures", "demo", "app.ts") } } } } }));
  const store = new FileRecordStore(dataDir);
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("alice", "pw", ["users"]);
  const { token } = (await new ApiTokens(store, accounts).create("alice"))!;
  await stateRootFor(t, store);

  // Coverage of these processes is left out: the gateway's code is covered in-process, and
  // merging the replicas' coverage of the same files skews the report.
  const env = { ...process.env };
  env.NODE_V8_COVERAGE = ""; // Node passes it on to children unless set explicitly
  const replicas = [0, 1].map(() => spawnCli(t, ["--config", config, "--port", "0", "--data-dir", dataDir], env, ROOT, GATEWAY));
  const urls = await Promise.all(replicas.map(async (r) => new URL((await r.waitFor(/hub_gateway ready at (\S+)/))[1]!)));
  assert.notEqual(urls[0]!.port, urls[1]!.port);

  // Every request, whatever the SDK sends (POSTs, the standalone GET stream, DELETE), goes to the next replica.
  const served: number[] = [];
  let turn = 0;
  const alternate = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const which = turn++ % 2;
    served.push(which);
    url.host = urls[which]!.host;
    return fetch(url, init);
  };

  const client = new Client({ name: "scale-out", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Grace" } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${urls[0]!.origin}/api/mcp/mcpdemo/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: alternate,
    }),
  );

  const sum = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
  assert.deepEqual(sum.content, [{ type: "text", text: "42" }]);
  const hello = await client.callTool({ name: "ask_user", arguments: { timeout: 30 } });
  assert.deepEqual(hello.content, [{ type: "text", text: "Hello, Grace!" }]);
  const created = (await client.request(
    { method: "tools/call", params: { name: "slow_sum", arguments: { values: "4,5", delay: 0.2 }, _meta: TASKS } },
    Any,
  )) as {
    taskId: string;
  };
  let task: Record<string, unknown>;
  do {
    task = (await client.request({ method: "tasks/get", params: { taskId: created.taskId, _meta: TASKS } }, Any)) as Record<string, unknown>;
    // Polling is the task protocol; the pause only spaces the polls.
    if (task.status === "working") await new Promise((r) => setTimeout(r, 100));
  } while (task.status === "working");
  assert.equal(task.status, "completed");
  assert.deepEqual((task.result as { content: unknown }).content, [{ type: "text", text: "9" }]);
  assert.ok(served.includes(0) && served.includes(1));
  await client.close();

  // The tool session's process, as recorded in the shared registry, ends with its replica.
  const records = await store.list<{ pid?: number }>("tool-sessions");
  assert.equal(records.length, 1);
  const pid = records[0]!.value.pid!;
  assert.ok(alive(pid));
  for (const r of replicas) r.child.kill("SIGTERM");
  const exits = await Promise.all(replicas.map((r) => r.exit));
  assert.deepEqual(
    exits.map((e) => e.code),
    [0, 0],
  );
  assert.ok(!alive(pid));
  assert.deepEqual(await store.list("tool-sessions"), []);
});
