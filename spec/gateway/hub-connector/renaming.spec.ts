// What `{publicUrl}/mcp` renames, seen by the official SDK client (issue 34, points 1 and 3):
// a job's message names tools under the names the client lists, and an MCP App is found
// under one URI in the tool's `_meta`, the resource list and the read (results' resource links
// and embedded resources take the same rule: federation/expose.ts, pinned in units.spec.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHarness } from "../helpers.ts";
import { appUriOf, assertAppFound } from "../../helpers/apps-host.ts";

const demo = { app: "fixtures/demo/app.ts" };
const HUB = { tools: { mcpdemo: { revisions: { default: demo } }, labdemo: { revisions: { default: demo } } } };

const textOf = (result: object): string => (result as { content: Array<{ text?: string }> }).content[0]?.text ?? "";

test("/mcp: job messages name tools that exist, and an App is found under one URI", { timeout: 90_000 }, async (t) => {
  const h = await startHarness(t, HUB, { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } });
  const client = new Client({ name: "renaming-spec", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${h.tokens.alice}` } } }),
  );
  t.after(() => client.close());
  const tools = (await client.listTools()).tools;
  const names = tools.map((x) => x.name);

  await t.test("a job's message names the tool to call as the client lists it, and following it works", async () => {
    assert.equal(names.filter((n) => n.endsWith("get_job_result")).join(), "hub_get_job_result", "one poller for every tool's jobs");
    const started = await client.callTool({ name: "labdemo_slow_sum", arguments: { values: "1,2", delay: 0.05 } });
    const handle = JSON.parse(textOf(started)) as { job_id: string; message: string };
    assert.match(handle.message, /^Started `labdemo_slow_sum` in the background\. Call `hub_get_job_result` with this job_id/);
    assert.match(handle.job_id, /^labdemo\//, "the job id leads to its tool");
    assert.deepEqual(started._meta, { "io.hubmcp/tool-refs": ["labdemo_slow_sum", "hub_get_job_result"] });
    for (const named of handle.message.match(/`[^`]+`/g)!) assert.ok(names.includes(named.slice(1, -1)), `${named} is a listed tool`);
    let polled: { status: string; result?: unknown } = { status: "running" };
    while (polled.status === "running") {
      const answer = await client.callTool({ name: "hub_get_job_result", arguments: { job_id: handle.job_id } });
      polled = JSON.parse(textOf(answer));
      assert.deepEqual(answer.structuredContent, polled);
    }
    assert.deepEqual(polled, { status: "done", job_id: handle.job_id, result: 3 });
    const other = JSON.parse(
      textOf(await client.callTool({ name: "hub_get_job_result", arguments: { job_id: handle.job_id.replace(/^labdemo/, "mcpdemo") } })),
    );
    assert.equal(other.status, "not_found", "another tool's server does not know the job");
    for (const job_id of ["nobody/1", "no-slash", "secret/1"]) {
      const answer = JSON.parse(textOf(await client.callTool({ name: "hub_get_job_result", arguments: { job_id } })));
      assert.deepEqual(answer, { status: "not_found", job_id });
    }
  });

  await t.test("the App's URI is the same in _meta, the list and the read; the ext-apps host finds it", async () => {
    const { resources } = await client.listResources();
    for (const [tool, uri] of [
      ["mcpdemo_projectile", "ui://mcpdemo/demo/plot"],
      ["labdemo_projectile", "ui://labdemo/demo/plot"],
    ] as const) {
      const entry = tools.find((x) => x.name === tool)!;
      const read = await client.readResource({ uri: appUriOf(entry)! });
      assert.equal(assertAppFound(entry, resources, read), uri);
    }
    // Several tools share the namespace: a tool's bare URI names no tool.
    await assert.rejects(client.readResource({ uri: "ui://demo/plot" }), /Resource not found/);
  });
});
