// start_mcp --rappture: Rappture tools served with no app file (or beside one), driven by
// the official SDK client over streamable HTTP; a malformed tool.xml is one line at start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { launcherEnv, ROOT, spawnCli, tempDir, writeApp } from "../helpers/launcher-fixtures.ts";

const FERMI = join(ROOT, "fixtures/rappture/fermi/tool.xml");
const INSTANT = join(ROOT, "fixtures/rappture/instant/tool.xml");
const LOCAL = ["--host", "127.0.0.1", "--port", "0"];
const TASKS = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const Any = z.object({}).passthrough();

async function connected(t: { after(fn: () => unknown): void }, url: string): Promise<Client> {
  const client = new Client({ name: "rappture-spec", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}mcp`)));
  t.after(() => client.close());
  return client;
}

test("start_mcp --rappture serves a tool.xml with no app: listed, called as a task and as a job", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const cli = spawnCli(t, ["--rappture", FERMI, ...LOCAL], launcherEnv(dir));
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)\n/);
  const client = await connected(t, url!);
  assert.equal(client.getServerVersion()?.name, "fermi");
  assert.equal(client.getServerVersion()?.version, "1.2");
  const { tools } = await client.listTools();
  const fermi = tools.find((x) => x.name === "fermi")!;
  assert.equal(fermi.title, "Fermi-Dirac Function");
  assert.ok("tabs_physics_temperature" in (fermi.inputSchema.properties ?? {}));

  // A task-capable call: created at once, polled to its result.
  const args = { tabs_physics_temperature: "77K", points: 12 };
  const created = (await client.request({ method: "tools/call", params: { name: "fermi", arguments: args, _meta: TASKS } }, Any)) as {
    resultType: string;
    taskId: string;
  };
  assert.equal(created.resultType, "task");
  let task: Record<string, unknown>;
  for (;;) {
    task = (await client.request({ method: "tasks/get", params: { taskId: created.taskId, _meta: TASKS } }, Any)) as Record<string, unknown>;
    if (task.status !== "working") break;
    await new Promise((r) => setTimeout(r, 100)); // the task protocol is polling
  }
  assert.equal(task.status, "completed", JSON.stringify(task));
  const result = task.result as { structuredContent: { f: { points: unknown[] } } };
  assert.equal(result.structuredContent.f.points.length, 12);

  // A client without tasks: the same tool as a job, its result through get_job_result.
  const poll = (r: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> => JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
  let job = poll(await client.callTool({ name: "fermi", arguments: { ...args, points: 10 } }));
  const jobId = job.job_id;
  assert.equal(job.status, "running");
  while (job.status === "running") {
    await new Promise((r) => setTimeout(r, 100)); // jobs are polled too
    job = poll(await client.callTool({ name: "get_job_result", arguments: { job_id: jobId } }));
  }
  assert.equal(job.status, "done", JSON.stringify(job));
  assert.equal((job.result as { f: { points: unknown[] } }).f.points.length, 10);
});

test("--rappture beside --app, repeatable: the app's tools and every tool.xml's", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const app = writeApp(dir);
  const cli = spawnCli(t, ["--app", app, "--rappture", FERMI, "--rappture", INSTANT, ...LOCAL], launcherEnv(dir));
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)\n/);
  const client = await connected(t, url!);
  const names = (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(names, ["echo", "fermi", "get_job_result", "instant"]);
});

test("a malformed tool.xml, or none: one line naming the file, the line and what is wrong; exit 1", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const bad = join(dir, "tool.xml");
  writeFileSync(bad, "<run>\n  <tool>\n    <command>x @driver</command>\n  </tool>\n  <input>\n</run>\n");
  for (const [file, pattern] of [
    [bad, new RegExp(`^start_mcp: ${bad}: line \\d+: .+\\n$`)],
    [join(dir, "missing.xml"), /^start_mcp: .*missing\.xml: cannot be read \(ENOENT\)\n$/],
  ] as const) {
    const cli = spawnCli(t, ["--rappture", file, ...LOCAL], launcherEnv(dir));
    assert.equal((await cli.exit).code, 1);
    assert.match(cli.stderr(), pattern);
    assert.equal(cli.stdout(), "");
  }
  const twice = spawnCli(t, ["--rappture", FERMI, "--rappture", FERMI, ...LOCAL], launcherEnv(dir));
  assert.equal((await twice.exit).code, 1);
  assert.match(twice.stderr(), /^start_mcp: .*fermi.* already registered\n$/);
});

test("--watch with --rappture alone watches the tool.xml's folder: an edited tool.xml is served on restart", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "tool.xml");
  const source = readFileSync(FERMI, "utf8");
  writeFileSync(file, source);
  const cli = spawnCli(t, ["--rappture", file, ...LOCAL, "--watch"], launcherEnv(dir));
  const [, first] = await cli.waitFor(/MCP server ready at (\S+)\n/);
  const title = async (url: string): Promise<string | undefined> => {
    const client = await connected(t, url);
    return (await client.listTools()).tools.find((x) => x.name === "fermi")?.title;
  };
  assert.equal(await title(first!), "Fermi-Dirac Function");
  writeFileSync(file, source.replace("<title>Fermi-Dirac Function</title>", "<title>Edited</title>"));
  const [, second] = await cli.waitFor(/(?:MCP server ready at \S+\n[\s\S]*)MCP server ready at (\S+)\n/);
  assert.equal(await title(second!), "Edited");
});
