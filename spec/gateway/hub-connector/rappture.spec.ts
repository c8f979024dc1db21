// Rappture revisions through a real gateway: start_mcp --rappture as each person's tool
// session, driven by the official SDK client on the per-tool route and at /mcp; a hub's
// catalogue of many Rappture tools listed and searched at /mcp from their tool.xml alone,
// with no tool session started until a tool is called.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { launchBackend, type LaunchRequest } from "../../../lib/gateway/backends/index.ts";
import { RappturesLists } from "../../../lib/gateway/hub-connector/rappture-lists.ts";
import { McpServer } from "../../../lib/server.ts";
import { ROOT, startHarness } from "../helpers.ts";
import { tempDir } from "../../helpers/launcher-fixtures.ts";

const FERMI = join(ROOT, "fixtures/rappture/fermi/tool.xml");
const INSTANT = join(ROOT, "fixtures/rappture/instant/tool.xml");
const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const Any = z.object({}).passthrough();
// The children run without coverage: merged coverage of differently compiled copies is skewed.
const CHILD_ENV = { ...process.env, NODE_V8_COVERAGE: "" };

/** Copies of the fermi tool with their own ids and titles, each in its own folder. */
function catalogue(dir: string, n: number): Record<string, unknown> {
  const source = readFileSync(FERMI, "utf8");
  const program = readFileSync(join(dirname(FERMI), "fermi.py"));
  const tools: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const folder = join(dir, `tool${i}`);
    mkdirSync(folder);
    const xml = source
      .replace("<id>fermi</id>", `<id>model${i}</id>`)
      .replace("<title>Fermi-Dirac Function</title>", `<title>Band model ${i}${i === 7 ? " of graphene" : ""}</title>`);
    writeFileSync(join(folder, "tool.xml"), xml);
    writeFileSync(join(folder, "fermi.py"), program);
    tools[`tool${i}`] = { revisions: { default: { rappture: join(folder, "tool.xml") } } };
  }
  return tools;
}

async function sdkClient(t: { after(fn: () => unknown): void }, url: string, token: string): Promise<Client> {
  const client = new Client({ name: "rappture-gateway-spec", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  t.after(() => client.close());
  return client;
}

test("a rappture revision: start_mcp --rappture per person, on the per-tool route and at /mcp with hub_search_tools", { timeout: 90_000 }, async (t) => {
  const launches: string[] = [];
  const launch = (req: LaunchRequest) => (launches.push(req.tool), launchBackend(req));
  const h = await startHarness(t, { tools: { fermi: { revisions: { default: { rappture: FERMI } } } } }, { childEnv: CHILD_ENV, launch });

  const hub = await sdkClient(t, `${h.base}/mcp`, h.tokens.alice);
  const listed = (await hub.listTools()).tools;
  assert.equal(launches.length, 0, "listed from the tool.xml: no tool session yet");
  const found = (await hub.callTool({ name: "hub_search_tools", arguments: { query: "Fermi-Dirac distribution" } })).structuredContent as {
    tools: Array<{ name: string }>;
  };
  const name = found.tools[0]!.name;
  assert.ok(listed.some((x) => x.name === name));

  const own = await sdkClient(t, `${h.base}/api/mcp/fermi/mcp`, h.tokens.alice);
  const live = (await own.listTools()).tools.find((x) => x.name === "fermi")!;
  assert.deepEqual(launches, ["fermi"]);
  const { name: _a, _meta: _b, ...fromXml } = listed.find((x) => x.name === name)!;
  const { name: _c, _meta: _d, ...fromSession } = live;
  assert.deepEqual(fromXml, fromSession, "the tool.xml's listing is the session's own (but the names and URIs /mcp gives)");
  const created = (await own.request({ method: "tools/call", params: { name: "fermi", arguments: { points: 12 }, _meta: TASKS } }, Any)) as { taskId: string };
  let task: Record<string, unknown>;
  for (;;) {
    task = (await own.request({ method: "tasks/get", params: { taskId: created.taskId, _meta: TASKS } }, Any)) as Record<string, unknown>;
    if (task.status !== "working") break;
    await new Promise((r) => setTimeout(r, 100)); // the task protocol is polling
  }
  assert.equal(task.status, "completed", JSON.stringify(task));
  assert.equal((task.result as { structuredContent: { f: { points: unknown[] } } }).structuredContent.f.points.length, 12);

  // At /mcp the call goes to the same person's tool session.
  const called = await hub.callTool({ name, arguments: { points: 10 } });
  assert.match(JSON.stringify(called), /job_id|points/);
  assert.deepEqual(launches, ["fermi"]);
});

test("a catalogue of 60 Rappture tools: listed and searched at /mcp with no tool session; a call starts one", { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755); // the tool sessions run as another account
  const launches: string[] = [];
  const launch = (req: LaunchRequest) => (launches.push(req.tool), launchBackend(req));
  const h = await startHarness(t, { tools: catalogue(dir, 60) }, { childEnv: CHILD_ENV, launch });
  const hub = await sdkClient(t, `${h.base}/mcp`, h.tokens.bob);
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await hub.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((x) => x.name));
    cursor = page.nextCursor;
  } while (cursor);
  for (let i = 0; i < 60; i++)
    assert.ok(
      names.some((n) => n.includes(`model${i}`)),
      `model${i}`,
    );
  const found = (await hub.callTool({ name: "hub_search_tools", arguments: { query: "graphene band model", limit: 3 } })).structuredContent as {
    tools: Array<{ name: string }>;
  };
  assert.match(found.tools[0]!.name, /model7$/);
  assert.deepEqual(launches, [], "no tool session was started to list or search");
  const answer = await hub.callTool({ name: found.tools[0]!.name, arguments: { points: 10 } });
  assert.notEqual(answer.isError, true);
  assert.deepEqual(launches, ["tool7"]);
});

test("the lists of a tool.xml are kept, read again when it changes, and a bad one is one line", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "tool.xml");
  writeFileSync(file, readFileSync(FERMI, "utf8"));
  const lists = new RappturesLists();
  const first = await lists.get(file);
  assert.equal(await lists.get(file), first, "kept while the file is unchanged");
  writeFileSync(file, readFileSync(FERMI, "utf8").replace("<title>Fermi-Dirac Function</title>", "<title>Renamed</title>"));
  utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const again = await lists.get(file);
  assert.equal(again.tools.find((x) => x.name === "fermi")!.title, "Renamed");
  writeFileSync(file, "<run>\n<tool>\n</run>");
  await assert.rejects(lists.get(file), { code: "HUBMCP_TOOL_XML_INVALID", message: new RegExp(`^${file}: line \\d+: `) });
  await assert.rejects(lists.get(join(dir, "none.xml")), { message: `${join(dir, "none.xml")}: cannot be read` });
  // One lister publishes them in turn: files asked at once, or after a bad one, list only their own.
  const [fermi, instant] = await Promise.all([lists.get(FERMI), lists.get(INSTANT)]);
  const fresh = (await new McpServer("x").rappture(INSTANT).handle({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })) as unknown as {
    result: { tools: unknown[] };
  };
  assert.deepEqual(instant.tools, fresh.result.tools, "what a server of its own lists, in its order");
  assert.deepEqual(
    [fermi, instant].map((l) => [l.tools.map((x) => x.name), l.resources.map((x) => x.uri)]),
    [
      [["fermi", "get_job_result"], ["ui://rappture/fermi/plot"]],
      [["instant", "get_job_result"], ["ui://rappture/instant/plot"]],
    ],
  );
  await assert.rejects(lists.get(join(file, "tool.xml")), { message: `${join(file, "tool.xml")}: cannot be read` });
  await assert.rejects(lists.get(dir), { message: `${dir}: cannot be read` });
});
