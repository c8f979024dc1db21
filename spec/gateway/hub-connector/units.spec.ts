// The hub connector's pure parts: the audience rule at /mcp, ids and task ids carried
// through it, list paging, BM25 ranking, and its settings in gateway.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import type { Principal, TokenVerifier } from "../../../lib/gateway/contracts/interfaces.ts";
import { authorizeHub } from "../../../lib/gateway/hub-connector/auth.ts";
import { exposeMessage, exposeResult } from "../../../lib/gateway/hub-connector/messages.ts";
import { prefixId, unprefixId, unprefixTask } from "../../../lib/federation/ids.ts";
import { listPage, negotiatedVersion } from "../../../lib/gateway/hub-connector/local.ts";
import { PersonView } from "../../../lib/gateway/hub-connector/namespace.ts";
import { SEARCH_DEFINITION, searchIndex, searchTools } from "../../../lib/federation/search.ts";
import { exposeJobHandle, exposeJobPoll, isJobPoller, notFoundJob, routeJob } from "../../../lib/gateway/hub-connector/jobs.ts";

const HUB = "https://hub.example.org";
const request = (authorization?: string): IncomingMessage => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;
const verifier = (principal: Principal): TokenVerifier => ({ verify: async () => principal });

test("/mcp takes hub-wide tokens and tokens for /mcp, never one bound to a tool", async () => {
  const ada = { user: "ada", groups: [], kind: "oauth" } as const;
  assert.equal((await authorizeHub(request("Bearer x"), [verifier(ada)], HUB)).user, "ada");
  assert.equal((await authorizeHub(request("Bearer x"), [verifier({ ...ada, audience: `${HUB}/mcp` })], HUB)).user, "ada");
  await assert.rejects(
    async () => authorizeHub(request("Bearer x"), [verifier({ ...ada, audience: `${HUB}/api/mcp/demo/mcp` })], HUB),
    (e: { status: number }) => e.status === 401,
  );
  await assert.rejects(
    async () => authorizeHub(request(), [verifier(ada)], HUB),
    (e: { status: number; headers: Record<string, string> }) => {
      assert.equal(e.headers["www-authenticate"], `Bearer resource_metadata="${HUB}/.well-known/oauth-protected-resource/mcp"`);
      return e.status === 401;
    },
  );
  const broken: TokenVerifier = { verify: async () => Promise.reject(new Error("store down")) };
  await assert.rejects(
    async () => authorizeHub(request("Bearer x"), [broken], HUB),
    (e: { status: number }) => e.status === 401,
  );
});

test("request ids and task ids carry their tool, and nothing else decodes", () => {
  assert.deepEqual(unprefixId(prefixId("lab", 7)), { label: "lab", id: 7 });
  assert.deepEqual(unprefixId(prefixId("lab", "a/b")), { label: "lab", id: "a/b" });
  for (const bad of [7, "nolabel", "/1", "lab/{", "lab/[1]"]) assert.equal(unprefixId(bad), null, String(bad));
  assert.deepEqual(unprefixTask("lab/t-1/x"), { label: "lab", taskId: "t-1/x" });
  assert.equal(unprefixTask("t1"), null);
  assert.equal(unprefixTask(3), null);

  let changed = 0;
  const on = (): void => void changed++;
  assert.deepEqual(exposeMessage("lab", { jsonrpc: "2.0", id: 3, method: "elicitation/create", params: {} }, undefined, on), {
    jsonrpc: "2.0",
    id: "lab/3",
    method: "elicitation/create",
    params: {},
  });
  assert.deepEqual(
    (exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "x" } }, undefined, on) as { params: unknown })
      .params,
    { level: "info", logger: "lab/x" },
  );
  assert.deepEqual(
    (exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } }, undefined, on) as { params: unknown }).params,
    { level: "info", logger: "lab" },
  );
  assert.deepEqual(
    (exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "lab://runs/1" } }, undefined, on) as { params: unknown })
      .params,
    { uri: "lab://lab/runs/1" },
  );
  assert.deepEqual(
    (
      exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId: "t", status: "working" } }, undefined, on) as {
        params: unknown;
      }
    ).params,
    { taskId: "lab/t", status: "working" },
  );
  assert.deepEqual(
    (exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } }, undefined, on) as { params: unknown }).params,
    { requestId: "lab/4" },
  );
  exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/tools/list_changed" }, undefined, on);
  exposeMessage("lab", { jsonrpc: "2.0", method: "notifications/prompts/list_changed", params: {} }, undefined, on);
  assert.equal(changed, 2);
  assert.equal(exposeMessage("lab", "not an object", undefined, on), "not an object");

  assert.deepEqual(exposeResult("lab", "tasks/get", { taskId: "a", status: "completed", result: { content: [{ type: "resource_link", uri: "ui://x" }] } }), {
    taskId: "lab/a",
    status: "completed",
    result: { content: [{ type: "resource_link", uri: "ui://lab/x" }] },
  });
  assert.deepEqual(exposeResult("lab", "tools/call", { task: { taskId: "a" }, _meta: { "io.modelcontextprotocol/related-task": { taskId: "a" } } }), {
    task: { taskId: "lab/a" },
    _meta: { "io.modelcontextprotocol/related-task": { taskId: "lab/a" } },
  });
  assert.deepEqual(exposeResult("lab", "completion/complete", { completion: { values: [] } }), { completion: { values: [] } });
});

test("lists page with an opaque cursor; a cursor it did not give is refused", () => {
  const tools = Array.from({ length: 5 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } }));
  const view = new PersonView(["a"], [{ tool: "a", lists: { tools, prompts: [], resources: [{ uri: "file:///x" }], resourceTemplates: [] } }]);
  const first = listPage(view, "tools/list", {}, 4)!;
  assert.equal((first.tools as unknown[]).length, 4);
  const second = listPage(view, "tools/list", { cursor: first.nextCursor }, 4)!;
  assert.deepEqual(
    (second.tools as Array<{ name: string }>).map((x) => x.name),
    ["a_t3", "a_t4"],
  );
  assert.equal(second.nextCursor, undefined);
  assert.deepEqual(listPage(view, "resources/list", {}, 4), { resources: [{ uri: "file://a//x" }] });
  assert.throws(() => listPage(view, "tools/list", { cursor: "o-1" }, 4), /unknown cursor/);
  assert.equal(listPage(view, "tools/call", {}, 4), undefined);
  assert.equal(view.resolve("tools", "a_t1")?.name, "t1");
  assert.equal(view.resolveUri("file://a//x")?.uri, "file:///x");
  assert.equal(negotiatedVersion({ protocolVersion: "2025-06-18" }), "2025-06-18");
  assert.equal(negotiatedVersion({ protocolVersion: "1999-01-01" }), "2025-11-25");
});

test("the built-in search tool keeps its name; a tool's colliding name gets the usual suffix", () => {
  const view = new PersonView(
    ["hub"],
    [{ tool: "hub", lists: { tools: [{ name: "search_tools" }, { name: "x" }], prompts: [], resources: [], resourceTemplates: [] } }],
  );
  assert.deepEqual(
    view.lists.tools.map((x) => x.name),
    ["hub_search_tools_2", "hub_x"],
  );
  assert.deepEqual(view.resolve("tools", "hub_search_tools_2"), { label: "hub", name: "search_tools" });
  assert.equal(view.resolve("tools", "hub_search_tools"), undefined);
});

test("search ranks by BM25 over names and descriptions", () => {
  const tools = [
    { name: "lab_fitCurve", description: "Fits a curve to points" },
    { name: "lab_plot", description: "Plots points; fits nothing" },
    { name: "lab_other", description: "Unrelated" },
  ];
  assert.deepEqual(
    searchTools(tools, "fit curve", 5).map((x) => x.name),
    ["lab_fitCurve"],
  );
  assert.deepEqual(searchTools(tools, "points", 1).map((x) => x.name).length, 1);
  assert.deepEqual(searchTools(tools, "   ", 5), []);
  const twins = [
    { name: "a_one", description: "same words" },
    { name: "b_one", description: "same words" },
  ];
  assert.deepEqual(
    searchTools(twins, "words", 5).map((x) => x.name),
    ["a_one", "b_one"],
    "equal scores keep list order",
  );
});

test("search indexes a catalogue once: the same list reuses its index, a changed one (a new list) gets its own", () => {
  const tools = [{ name: "lab_fit", description: "Fits a curve" }, { ...SEARCH_DEFINITION }];
  const index = searchIndex(tools);
  searchTools(tools, "curve", 5);
  assert.equal(searchIndex(tools), index, "no index is built per query");
  assert.deepEqual(
    index.docs.map((d) => d.item.name),
    ["lab_fit"],
    "the search tool itself is not a result",
  );
  const changed = [...tools, { name: "lab_band", description: "Band structure" }];
  assert.notEqual(searchIndex(changed), index);
  assert.deepEqual(
    searchTools(changed, "band", 5).map((x) => x.name),
    ["lab_band"],
  );
});

test("connector settings and per-tool catalog keys in gateway.json", () => {
  const tools = {
    demo: { catalog: false, catalogRevision: "dev", revisions: { default: { url: "http://127.0.0.1:1/" }, dev: { url: "http://127.0.0.1:2/" } } },
  };
  const config = parseGatewayConfig({ tools, connector: { pageSize: 20, catalogMaxAgeSeconds: 5 } }, "/");
  assert.deepEqual(config.connector, { pageSize: 20, catalogMaxAgeMs: 5000 });
  assert.equal(config.tools.demo!.catalog, false);
  assert.equal(config.tools.demo!.catalogRevision, "dev");
  const bad: Array<[unknown, RegExp]> = [
    [{ tools: {}, connector: 3 }, /^connector must be an object/],
    [{ tools: {}, connector: { pages: 1 } }, /^connector\.pages is not a known key/],
    [{ tools: {}, connector: { pageSize: 0 } }, /^connector\.pageSize must be/],
    [{ tools: {}, connector: { catalogMaxAgeSeconds: -1 } }, /^connector\.catalogMaxAgeSeconds must be/],
    [{ tools: { demo: { ...tools.demo, catalog: "no" } } }, /^tools\.demo\.catalog must be true or false/],
    [{ tools: { demo: { ...tools.demo, catalogRevision: "nope" } } }, /^tools\.demo\.catalogRevision must name/],
  ];
  for (const [value, message] of bad)
    assert.throws(
      () => parseGatewayConfig(value, "/"),
      (e: Error) => message.test(e.message),
    );
});

test("job ids through /mcp: a handle stated by its tool-refs and a poll's answer carry the tool; anything else is left", () => {
  const handle = {
    content: [{ type: "text", text: JSON.stringify({ status: "running", job_id: "j1", message: "Call `get_job_result`" }) }],
    _meta: { "io.hubmcp/tool-refs": ["get_job_result"] },
  };
  assert.equal(JSON.parse((exposeJobHandle("lab", handle).content as Array<{ text: string }>)[0]!.text).job_id, "lab/j1");
  const plain = { content: [{ type: "text", text: '{"job_id":"mine"}' }] };
  assert.equal(exposeJobHandle("lab", plain), plain, "a tool's own job_id without the poller's tool-refs is its own");
  const poll = {
    content: [
      { type: "text", text: '{"status":"done","job_id":"j1","result":3}' },
      { type: "text", text: 'not json "job_id"' },
    ],
    structuredContent: { status: "done", job_id: "j1", result: 3 },
  };
  const exposed = exposeJobPoll("lab", poll);
  assert.deepEqual(exposed.structuredContent, { status: "done", job_id: "lab/j1", result: 3 });
  assert.deepEqual(
    (exposed.content as Array<{ text: string }>).map((b) => b.text),
    ['{"status":"done","job_id":"lab/j1","result":3}', 'not json "job_id"'],
  );
  assert.deepEqual(routeJob({ job_id: "lab/j/1" }), { tool: "lab", jobId: "j/1" });
  for (const args of [{ job_id: "lab/" }, { job_id: "/x" }, { job_id: 7 }, null]) assert.equal(routeJob(args), null);
  assert.deepEqual(notFoundJob({ job_id: 7 }).structuredContent, { status: "not_found", job_id: "" });
  assert.equal(isJobPoller({ name: "get_job_result" }, [{ name: "get_job_result" }]), false, "a sync server's own tool of that name stays");
});
