// server.rappture(): a Rappture tool published with one line, called over real HTTP as a
// task (progress, structured outputs, provenance, the cache) and refused when its inputs are.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { McpServer } from "../../lib/index.ts";
import { RAPPTURE_META } from "../../lib/rappture/publish.ts";
import { ToolXmlError } from "../../lib/rappture/tool-xml.ts";
import { openEvents, post, rpc } from "../helpers/rpc.ts";
import { RpcClient } from "../tasks/harness.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";

const FERMI = fileURLToPath(new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url));

async function started(t: { after(fn: () => unknown): void }, server: McpServer) {
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize({ tasks: {} });
  return client;
}

test("one line publishes a tool.xml: its schema, a task with progress, outputs as data, provenance, the cache", async (t) => {
  const server = new McpServer("hub").rappture(FERMI);
  const client = await started(t, server);
  const { tools } = await client.result("tools/list");
  const fermi = tools.find((x: { name: string }) => x.name === "fermi");
  assert.equal(fermi.title, "Fermi-Dirac Function");
  assert.match(fermi.description, /^Plots the Fermi-Dirac distribution/);
  assert.equal(fermi.inputSchema.properties.tabs_physics_temperature["x-rappture-path"], "input.group(tabs).group(physics).number(temperature)");
  assert.equal(fermi.execution.taskSupport, "optional");
  const events = await openEvents(`${client.url}`, { "mcp-session-id": client.sessionId! });
  t.after(() => events.close());
  assert.equal((await events.next()).data, "", "the priming event");
  const args = { tabs_physics_temperature: "-196C", points: 16 };
  const { task } = await client.result("tools/call", { name: "fermi", arguments: args, task: {}, _meta: { progressToken: "p" } });
  let first = JSON.parse((await events.next()).data);
  const logged: string[] = [];
  while (first.method === "notifications/message") logged.push(first.params.data), (first = JSON.parse((await events.next()).data));
  assert.deepEqual(logged, ["computing"], "the program's own lines go to the log");
  assert.equal(first.method, "notifications/progress");
  assert.deepEqual([first.params.progress, first.params.total, first.params.message], [0, 100, "computing f(E)"]);
  const result = await client.result("tasks/result", { taskId: task.taskId });
  assert.equal(result.isError, false);
  assert.equal(result.structuredContent.f.points.length, 16);
  assert.deepEqual(result.structuredContent.kT, { kind: "number", label: "kT", value: 0.00664828, units: "eV" });
  assert.match(result.content[0].text, /^Fermi-Dirac Factor: a curve of 16 points\nkT: 0.00664828 eV/);
  const meta = result._meta[RAPPTURE_META];
  assert.equal(meta.tool, "fermi");
  assert.equal(meta.version, "1.2");
  assert.equal(meta.cached, false);
  assert.equal(meta.inputs["input.group(tabs).group(physics).number(temperature)"], "77.14999999999998K");
  assert.match(meta.runDigest, /^[0-9a-f]{64}$/);
  const again = await client.result("tools/call", { name: "fermi", arguments: args, task: {} });
  const cached = await client.result("tasks/result", { taskId: again.task.taskId });
  assert.equal(cached._meta[RAPPTURE_META].cached, true);
  assert.equal(cached._meta[RAPPTURE_META].runDigest, meta.runDigest);
  const optOut = { [RAPPTURE_META]: { cache: false } };
  const fresh = await client.result("tools/call", { name: "fermi", arguments: args, task: {}, _meta: optOut });
  assert.equal((await client.result("tasks/result", { taskId: fresh.task.taskId }))._meta[RAPPTURE_META].cached, false, "a caller opts out of the cache");
});

test("refused inputs and failed runs are isError results with a short message; nothing of the environment leaks", async (t) => {
  const server = new McpServer("hub").rappture(FERMI, { name: "fd", cacheSize: 0, env: { ...process.env, HUBMCP_SECRET: "s3cret" } });
  const client = await started(t, server);
  const call = async (args: Record<string, unknown>) => {
    const { task } = await client.result("tools/call", { name: "fd", arguments: args, task: {} });
    return client.result("tasks/result", { taskId: task.taskId });
  };
  const refusedTask = await client.call("tools/call", { name: "fd", arguments: { tabs_physics_temperature: "900K" }, task: {} });
  const why = "Invalid arguments: /tabs_physics_temperature: is out of range: allowed 0 to 500 K";
  assert.deepEqual([refusedTask.error.code, refusedTask.error.message], [-32602, why], "refused at call time, not when the task is polled");
  const unconvertible = await client.call("tools/call", { name: "fd", arguments: { tabs_physics_temperature: "3 furlongs" }, task: {} });
  assert.match(unconvertible.error.message, /^Invalid arguments: \/tabs_physics_temperature: /);
  assert.deepEqual((await client.result("tasks/list")).tasks, [], "no task was created");
  const failed = await call({ title: "fail" });
  assert.deepEqual([failed.isError, failed.content[0].text], [true, "the tool exited with status 3; its last error output:\nfermi: the solver diverged"]);
  const malformed = await call({ title: "badxml" });
  assert.equal(malformed.isError, true);
  assert.match(malformed.content[0].text, /^the run file is not valid XML/);
  const schema = await client.call("tools/call", { name: "fd", arguments: { model: "nope" }, task: {} });
  assert.match(schema.error.message, /^Invalid arguments: \/model: /, "the schema refuses an option that is not one");
  assert.doesNotMatch(JSON.stringify([refusedTask, failed, malformed]), /s3cret/);
});

test("an out-of-range value is refused at call time on every path: a job's client, a stateless client", async (t) => {
  const server = new McpServer("hub").rappture(FERMI, { name: "fd", cacheSize: 0 });
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const jobs = new RpcClient(running.url);
  await jobs.initialize({});
  const job = await jobs.result("tools/call", { name: "fd", arguments: { tabs_physics_temperature: "-300C" } });
  assert.deepEqual([job.isError, job.content[0].text], [true, "Invalid arguments: /tabs_physics_temperature: is out of range: allowed 0 to 500 K"]);
  assert.equal(job._meta, undefined, "no job handle");
  const unconvertible = await jobs.result("tools/call", { name: "fd", arguments: { tabs_physics_temperature: "77 apples" } });
  assert.equal(unconvertible.isError, true);
  assert.match(unconvertible.content[0].text, /^Invalid arguments: \/tabs_physics_temperature: /);
  // A 2026-07-28 client without the tasks extension gets its answer in-line: the refusal too.
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const headers = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "fd" };
  const inline = await post(
    `${running.url}mcp`,
    rpc(1, "tools/call", { name: "fd", arguments: { tabs_physics_temperature: "1 parsec" }, _meta: meta }),
    headers,
  );
  assert.equal(inline.json.result.isError, true);
  assert.match(inline.json.result.content[0].text, /^Invalid arguments: \/tabs_physics_temperature: /);
});

test("a malformed tool.xml is one clear error at registration", () => {
  assert.throws(
    () => new McpServer("hub").rappture("/nonexistent/tool.xml"),
    (err: unknown) => err instanceof ToolXmlError && /cannot be read \(ENOENT\)/.test(err.message),
  );
});

test("each run's file is a resource for its own session: linked from the result, its digest in _meta, private, linked anew from the cache", async (t) => {
  const server = new McpServer("hub").rappture(FERMI);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const mine = new RpcClient(running.url);
  await mine.initialize({ tasks: {} });
  const other = new RpcClient(running.url);
  await other.initialize({ tasks: {} });
  const { resourceTemplates } = await mine.result("resources/templates/list");
  assert.deepEqual(
    resourceTemplates.map((x: { uriTemplate: string }) => x.uriTemplate),
    ["rappture://fermi/runs/{run}/run.xml"],
  );
  const runOnce = async (client: RpcClient) => {
    const { task } = await client.result("tools/call", { name: "fermi", arguments: { points: 11 }, task: {} });
    return client.result("tasks/result", { taskId: task.taskId });
  };
  const result = await runOnce(mine);
  const link = result.content.find((b: { type: string }) => b.type === "resource_link");
  assert.match(link.uri, /^rappture:\/\/fermi\/runs\/[\w-]{22}\/run\.xml$/);
  assert.equal(link.mimeType, "application/xml");
  const read = await mine.result("resources/read", { uri: link.uri });
  assert.equal(createHash("sha256").update(read.contents[0].text).digest("hex"), result._meta[RAPPTURE_META].runDigest, "the digest names this file");
  assert.match(read.contents[0].text, /<output>/);
  const stranger = await other.call("resources/read", { uri: link.uri });
  assert.equal(stranger.error.code, -32002, "another session finds nothing there");
  const cached = await runOnce(other);
  assert.equal(cached._meta[RAPPTURE_META].cached, true);
  const theirs = cached.content.find((b: { type: string }) => b.type === "resource_link").uri;
  assert.notEqual(theirs, link.uri, "a cached answer links a copy kept for the caller's session");
  assert.equal((await other.result("resources/read", { uri: theirs })).contents[0].text, read.contents[0].text);
  assert.equal((await mine.call("resources/read", { uri: theirs })).error.code, -32002);
});

test("a tool.xml that declares its outputs gives the tool an outputSchema, which its runs answer", async (t) => {
  const dir = tempDir(t);
  const declared =
    '<output><curve id="f"><about><label>Fermi-Dirac Factor</label></about></curve><number id="kT"><about><label>kT</label><description>Thermal energy</description></about></number><log id="unused"/></output>';
  writeFileSync(join(dir, "tool.xml"), readFileSync(FERMI, "utf8").replace("<output/>", declared).replaceAll("@tool", dirname(FERMI)));
  const server = new McpServer("hub").rappture(join(dir, "tool.xml"), { cacheSize: 0 });
  const client = await started(t, server);
  const { tools } = await client.result("tools/list");
  const schema = tools.find((x: { name: string }) => x.name === "fermi").outputSchema;
  assert.deepEqual(Object.keys(schema.properties), ["f", "kT", "unused"]);
  assert.deepEqual(schema.properties.kT.properties.kind, { const: "number" });
  assert.equal(schema.properties.kT.description, "Thermal energy");
  assert.equal(schema.required, undefined, "a run may leave an output out");
  const { task } = await client.result("tools/call", { name: "fermi", arguments: { points: 10 }, task: {} });
  const result = await client.result("tasks/result", { taskId: task.taskId });
  assert.equal(result.isError, false, "the run's outputs match the schema");
  assert.equal(result.structuredContent.f.points.length, 10);
});

test("a client that polls jobs is told where its result came from, and can read the run file, as a task client is", async (t) => {
  const server = new McpServer("hub").rappture(FERMI);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const client = new RpcClient(running.url);
  await client.initialize({});
  const started = await client.result("tools/call", { name: "fermi", arguments: { points: 11 } });
  const { job_id } = JSON.parse(started.content[0].text);
  assert.ok(job_id, started.content[0].text);
  let poll: {
    content: Array<{ type: string; uri?: string; text?: string }>;
    structuredContent: { status: string };
    _meta?: Record<string, { runDigest: string }>;
  };
  do poll = await client.result("tools/call", { name: "get_job_result", arguments: { job_id } });
  while (poll.structuredContent.status === "running");
  assert.equal(poll.structuredContent.status, "done");
  const digest = poll._meta?.[RAPPTURE_META]?.runDigest;
  assert.match(digest ?? "", /^[0-9a-f]{64}$/, "the poll carries the run's provenance");
  const link = poll.content.find((b) => b.type === "resource_link");
  assert.ok(link?.uri, "and the link to its run file");
  const read = await client.result("resources/read", { uri: link.uri });
  assert.equal(createHash("sha256").update(read.contents[0].text).digest("hex"), digest);
});
