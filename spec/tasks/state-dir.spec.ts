// Async runs kept in a state directory survive the tool server: a start_mcp killed with
// SIGKILL and started again on the same directory still answers for finished jobs and tasks,
// and reports a run the kill cut off as failed, never as unknown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { mkdtempSync, rmdirSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LIB_INDEX, spawnCli, tempDir } from "../helpers/launcher-fixtures.ts";
import { RpcClient, jobOf, manualClock } from "./harness.ts";
import { AsyncStore } from "../../lib/tasks/store.ts";
import { DirectoryPersistence } from "../../lib/tasks/state-dir.ts";
import type { RunRecord } from "../../lib/tasks/persist.ts";
import { CUT_OFF_MESSAGE } from "../../lib/tasks/run.ts";

const CAPS = { tasks: { list: {}, cancel: {} } };

function writeAsyncApp(dir: string): string {
  const path = join(dir, "app.mjs");
  writeFileSync(
    path,
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
export const server = new McpServer("state-app", { closeTimeoutMs: 500 });
const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
server.asyncTool(function double({ n }) { return n * 2; }, { description: "Double", inputSchema: schema });
server.asyncTool(function hang(_args, ctx) {
  ctx.setTaskMetadata({ step: "waiting" });
  return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
}, { description: "Never ends by itself", inputSchema: { type: "object" } });
`,
  );
  return path;
}

async function startServer(t: { after(fn: () => unknown): void }, app: string, stateDir: string) {
  const cli = spawnCli(t, ["--app", app, "--host", "127.0.0.1", "--port", "0", "--state-dir", stateDir], { ...process.env, HUBMCP_STATE_DIR: "" });
  const [, url] = await cli.waitFor(/MCP server ready at (\S+)\n/);
  return { cli, url: url!.replace(/mcp\/?$/, "").replace(/sse\/?$/, "") };
}

/** Bounded wait for a condition the test cannot be told about (a record reaching the disk). */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const statusOnDisk = (dir: string, id: string): string | undefined => {
  try {
    return JSON.parse(readFileSync(join(dir, "runs", `${id}.json`), "utf8")).status;
  } catch {
    return undefined;
  }
};

test("start_mcp killed and restarted on its state dir still answers finished runs and fails cut-off ones", async (t) => {
  const dir = tempDir(t, "hubmcp-state-");
  const stateDir = join(dir, "state");
  const app = writeAsyncApp(dir);
  const first = await startServer(t, app, stateDir);

  const a = new RpcClient(first.url);
  await a.initialize(CAPS);
  const { task: done } = await a.result("tools/call", { name: "double", arguments: { n: 21 }, task: {} });
  const finished = await a.result("tasks/result", { taskId: done.taskId });
  assert.equal(finished.content[0].text, "42");
  const { task: cut } = await a.result("tools/call", { name: "hang", arguments: {}, task: {} });
  const old = new RpcClient(first.url);
  await old.initialize();
  const job = jobOf(await old.result("tools/call", { name: "double", arguments: { n: 5 } }));
  await until("the job's record to read completed", () => statusOnDisk(stateDir, job.job_id) === "completed");
  await until("the hanging task's handle", () => JSON.parse(readFileSync(join(stateDir, "runs", `${cut.taskId}.json`), "utf8")).handle !== null);

  assert.equal(statSync(join(stateDir, "runs")).mode & 0o777, 0o700);
  for (const name of readdirSync(join(stateDir, "runs"))) assert.equal(statSync(join(stateDir, "runs", name)).mode & 0o777, 0o600, name);

  first.cli.child.kill("SIGKILL");
  await first.cli.exit;
  const second = await startServer(t, app, stateDir);

  const b = new RpcClient(second.url);
  await b.initialize(CAPS);
  const got = await b.result("tasks/get", { taskId: done.taskId });
  assert.equal(got.status, "completed");
  const again = await b.result("tasks/result", { taskId: done.taskId });
  assert.deepEqual(again.content, finished.content);

  const lost = await b.result("tasks/get", { taskId: cut.taskId });
  assert.equal(lost.status, "failed");
  assert.equal(lost.statusMessage, CUT_OFF_MESSAGE);
  assert.deepEqual(lost._meta, { "io.hubmcp/handle": { step: "waiting" } });
  const lostResult = await b.result("tasks/result", { taskId: cut.taskId });
  assert.equal(lostResult.isError, true);
  assert.equal(lostResult.content[0].text, CUT_OFF_MESSAGE);

  const poller = new RpcClient(second.url);
  await poller.initialize();
  const polled = jobOf(await poller.result("tools/call", { name: "get_job_result", arguments: { job_id: job.job_id } }));
  assert.deepEqual(polled, { status: "done", job_id: job.job_id, result: 10 });
  // Read once, as before a restart: the record is gone from memory and from the disk.
  assert.equal(statusOnDisk(stateDir, job.job_id), undefined);
});

test("records past their TTL, torn writes and foreign files are dropped when read back", async (t) => {
  const dir = tempDir(t, "hubmcp-state-");
  const clock = manualClock();
  const store = new AsyncStore({ now: clock.now, ttlMs: 1000 }, undefined, new DirectoryPersistence(dir));
  const started = store.start({
    how: { kind: "job" },
    session: null,
    toolName: "x",
    execute: async () => ({ result: { content: [], isError: false }, value: 1 }),
  });
  assert.ok(started.ok);
  await started.run.whenTerminal();
  const live = store.start({ how: { kind: "task", form: "mcp" }, session: null, toolName: "y", execute: () => new Promise(() => {}) });
  assert.ok(live.ok);
  live.run.setHandle({ jobId: "7" }, clock.now());
  const runs = join(dir, "runs");
  writeFileSync(join(runs, `.${started.run.id}.abc.tmp`), "{");
  writeFileSync(join(runs, "00000000-0000-4000-8000-000000000000.json"), "not json");
  mkdirSync(join(runs, "unrelated"));

  const back = new AsyncStore({ now: clock.now, ttlMs: 1000 }, undefined, new DirectoryPersistence(dir));
  assert.equal(back.get(started.run.id)?.status, "completed");
  const cut = back.get(live.run.id)!;
  assert.deepEqual([cut.status, cut.settled?.result.content, cut.handle], ["failed", [{ type: "text", text: CUT_OFF_MESSAGE }], { jobId: "7" }]);
  assert.equal(statusOnDisk(dir, live.run.id), "failed");
  assert.deepEqual(readdirSync(runs).sort(), [`${started.run.id}.json`, `${live.run.id}.json`, "unrelated"].sort());

  clock.advance(1000);
  const later = new AsyncStore({ now: clock.now, ttlMs: 1000 }, undefined, new DirectoryPersistence(dir));
  assert.equal(later.size, 0);
  assert.deepEqual(readdirSync(runs), ["unrelated"]);
});

test("a record that cannot be written on a full disk leaves no temporary file behind", {
  skip: process.getuid?.() !== 0 && "needs root to mount a tmpfs",
}, (t) => {
  const mount = mkdtempSync(join(tmpdir(), "hubmcp-full-state-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mount]);
  t.after(() => {
    execFileSync("umount", [mount]);
    rmdirSync(mount);
  });
  const dir = join(mount, "state");
  mkdirSync(dir, { mode: 0o700 });
  const persistence = new DirectoryPersistence(dir);
  const record = (id: string, text: string): RunRecord => ({
    v: 1,
    id,
    seq: 1,
    how: { kind: "job" },
    sessionId: null,
    toolName: "x",
    createdAt: 0,
    updatedAt: 0,
    finishedAt: 0,
    ttlMs: 1000,
    pollIntervalMs: 100,
    status: "completed",
    settled: { result: { content: [{ type: "text", text }], isError: false }, value: null },
    handle: null,
    protocolError: null,
  });
  persistence.save(record("00000000-0000-4000-8000-000000000001", "small"));
  assert.throws(() => persistence.save(record("00000000-0000-4000-8000-000000000002", "x".repeat(256 * 1024))), { code: "ENOSPC" });
  assert.deepEqual(readdirSync(join(dir, "runs")), ["00000000-0000-4000-8000-000000000001.json"]);
});
