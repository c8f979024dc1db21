// Every form of async run read back from a state directory by a new McpServer: 2026 tasks
// (a completed one, a protocol-level failure, one cut off), seed-form and MCP-form tasks,
// with the handles their tools attached; a clean stop counts as a restart, not a cancel.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer, type ToolContext } from "../../lib/index.ts";
import { post, rpc } from "../helpers/rpc.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";
import { RpcClient, deferred, manualClock } from "./harness.ts";
import { AsyncStore } from "../../lib/tasks/store.ts";
import { DirectoryPersistence, RunStateDirError } from "../../lib/tasks/state-dir.ts";
import { CUT_OFF_MESSAGE } from "../../lib/tasks/run.ts";
import type { RunPersistence } from "../../lib/tasks/persist.ts";

const V = "2026-07-28";
const EXT = "io.modelcontextprotocol/tasks";
const HANDLE = "io.hubmcp/handle";
const NO_ARGS = { type: "object" } as const;

function appServer(stateDir: string): McpServer {
  const server = new McpServer("persist-spec", { stateDir, closeTimeoutMs: 200 });
  server.asyncTool(
    ({ n }: { n: number }, ctx: ToolContext) => {
      ctx.setTaskMetadata({ step: 1 });
      ctx.setTaskMetadata({ host: "node7" });
      return n * 2;
    },
    { name: "double", inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  );
  server.asyncTool(
    () => {
      throw Object.assign(new Error("Backend down"), { code: -32603 });
    },
    { name: "crash", inputSchema: NO_ARGS },
  );
  server.asyncTool(
    (_args: object, ctx: ToolContext) => {
      ctx.setTaskMetadata({ waiting: true });
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true }));
    },
    { name: "hang", inputSchema: NO_ARGS },
  );
  server.tool(
    (_args: object, ctx: ToolContext) => {
      const outcomes: unknown[] = [ctx.setTaskMetadata({ a: 1 })];
      for (const bad of ["text", [1], { big: "x".repeat(5000) }, { n: 1n }]) {
        try {
          ctx.setTaskMetadata(bad as never);
          outcomes.push("accepted");
        } catch (err) {
          outcomes.push((err as Error).name);
        }
      }
      return outcomes;
    },
    { name: "sync_handle", inputSchema: NO_ARGS },
  );
  return server;
}

function stateless2026(url: string) {
  let id = 0;
  return async (method: string, params: Record<string, unknown>): Promise<any> => {
    const name = (params.name ?? params.taskId) as string;
    const meta = { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } } };
    const headers = { accept: "application/json", "mcp-protocol-version": V, "mcp-method": method, "mcp-name": name };
    const reply = await post(`${url}mcp`, rpc(++id, method, { ...params, _meta: meta }), headers);
    return reply.json;
  };
}

async function until(get: () => Promise<any>, status: string): Promise<any> {
  for (;;) {
    const got = await get();
    if (got.status === status) return got;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test("a new server on the same state dir answers every form of task; cut-off runs read as failed", async (t) => {
  const stateDir = join(tempDir(t, "hubmcp-persist-"), "state");
  const first = await appServer(stateDir).listen({ port: 0, host: "127.0.0.1" });
  let firstOpen = true;
  t.after(() => firstOpen && first.close());
  const call26 = stateless2026(first.url);
  const done26 = (await call26("tools/call", { name: "double", arguments: { n: 4 } })).result;
  const got26 = await until(async () => (await call26("tasks/get", { taskId: done26.taskId })).result, "completed");
  assert.deepEqual(got26._meta[HANDLE], { step: 1, host: "node7" });
  const crash26 = (await call26("tools/call", { name: "crash", arguments: {} })).result;
  await until(async () => (await call26("tasks/get", { taskId: crash26.taskId })).result, "failed");
  const hang26 = (await call26("tools/call", { name: "hang", arguments: {} })).result;

  const seed = new RpcClient(first.url);
  await seed.initialize({ extensions: { [EXT]: {} } });
  const seedTask = await seed.result("tools/call", { name: "double", arguments: { n: 5 } });
  const seedDone = await until(() => seed.result("tasks/get", { taskId: seedTask.taskId }), "completed");
  assert.deepEqual(seedDone._meta, { [HANDLE]: { step: 1, host: "node7" } });

  const mcp = new RpcClient(first.url);
  await mcp.initialize({ tasks: {} });
  const { task: hang } = await mcp.result("tools/call", { name: "hang", arguments: {}, task: {} });
  assert.equal((await mcp.result("tasks/get", { taskId: hang.taskId }))._meta[HANDLE].waiting, true);
  assert.deepEqual(await mcp.result("tools/call", { name: "sync_handle", arguments: {} }).then((r) => JSON.parse(r.content[0].text)), [
    false,
    "TypeError",
    "TypeError",
    "TypeError",
    "TypeError",
  ]);

  // A clean stop ends the sessions: their tasks stay on disk, the hanging ones as cut off.
  await first.close();
  firstOpen = false;
  assert.ok(existsSync(join(stateDir, "runs", `${hang.taskId}.json`)));

  const second = await appServer(stateDir).listen({ port: 0, host: "127.0.0.1" });
  t.after(() => second.close());
  const again26 = stateless2026(second.url);
  const back = (await again26("tasks/get", { taskId: done26.taskId })).result;
  assert.equal(back.status, "completed");
  assert.equal(back.result.content[0].text, "8");
  assert.deepEqual((await again26("tasks/get", { taskId: crash26.taskId })).result.error, { code: -32603, message: "Backend down" });
  const cut26 = (await again26("tasks/get", { taskId: hang26.taskId })).result;
  assert.equal(cut26.status, "failed");
  assert.deepEqual(cut26.error, { code: -32603, message: CUT_OFF_MESSAGE });
  assert.equal((await again26("tasks/update", { taskId: hang26.taskId, inputResponses: {} })).error, undefined);

  const other = new RpcClient(second.url);
  await other.initialize({ extensions: { [EXT]: {} }, tasks: {} });
  const seedBack = await other.result("tasks/get", { taskId: seedTask.taskId });
  assert.equal(seedBack.status, "completed");
  assert.equal(seedBack.result.content[0].text, "10");
  const hangBack = await other.result("tasks/get", { taskId: hang.taskId });
  assert.deepEqual([hangBack.status, hangBack.statusMessage], ["failed", CUT_OFF_MESSAGE]);
  // The seed-form task is not a 2026 one: that API does not know it.
  assert.equal((await again26("tasks/get", { taskId: seedTask.taskId })).error.code, -32602);
});

test("a state dir that cannot be written does not fail the run; one that is not ours is refused", async (t) => {
  const dir = tempDir(t, "hubmcp-persist-");
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
  const broken: RunPersistence = {
    save: () => {
      throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
    },
    remove() {},
    load: () => [],
  };
  const store = new AsyncStore({ now: manualClock().now }, logger, broken);
  const settled = deferred();
  const started = store.start({
    how: { kind: "job" },
    session: null,
    toolName: "x",
    execute: async () => (await settled.promise, { result: { content: [], isError: false }, value: 2 }),
  });
  assert.ok(started.ok);
  settled.resolve();
  await started.run.whenTerminal();
  assert.equal(started.run.status, "completed");
  assert.deepEqual([...new Set(warnings)], ["could not write an async run to the state directory"]);

  const refused = (path: string, message: RegExp): void =>
    assert.throws(
      () => new DirectoryPersistence(path),
      (err: unknown) => err instanceof RunStateDirError && err.code === "HUBMCP_STATE_DIR" && message.test(err.message),
    );
  writeFileSync(join(dir, "runs"), "a file, not a folder");
  refused(dir, /runs folder is not a folder/);
  // Another account could swap `runs` for a folder of its own in a directory it may write or owns.
  mkdirSync(join(dir, "shared"), { mode: 0o700 });
  chmodSync(join(dir, "shared"), 0o777);
  refused(join(dir, "shared"), /writable by other users/);
  mkdirSync(join(dir, "theirs"), { mode: 0o700 });
  chownSync(join(dir, "theirs"), 65534, 65534);
  refused(join(dir, "theirs"), /belongs to another user/);
  symlinkSync(join(dir, "shared"), join(dir, "link"));
  refused(join(dir, "link"), /not a folder/);
  mkdirSync(join(dir, "other"));
  assert.equal(new DirectoryPersistence(join(dir, "other")).load().length, 0);
});
