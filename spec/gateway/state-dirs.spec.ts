// A tool session's state directory is its (person, tool, revision)'s: a session started after
// an idle stop answers for the async runs of its predecessor, and the folders are checked,
// never assumed, since the root lives where other accounts can make names first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, readFileSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionStateDir, SessionStateDirError } from "../../lib/gateway/state-dirs.ts";
import type { ToolSessionRecord } from "../../lib/gateway/tool-sessions.ts";
import { LIB_INDEX, tempDir } from "../helpers/launcher-fixtures.ts";
import { IS_ROOT } from "../helpers/os-user.ts";
import { post, rpc, startHarness } from "./helpers.ts";

const NOBODY = { name: "nobody", uid: 65534, gid: 65534, home: "/nonexistent" };

test("a restarted tool session keeps its predecessor's state directory: a finished job's result survives an idle stop", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  chmodSync(dir, 0o755);
  const app = join(dir, "app.mjs");
  writeFileSync(
    app,
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
export const server = new McpServer("keeps", { closeTimeoutMs: 500 });
server.asyncTool(function double({ n }) { return n * 2; }, { description: "Double", inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } });
server.tool(function where() { return process.env.HUBMCP_STATE_DIR; });
`,
  );
  const h = await startHarness(t, { tools: { keeps: { revisions: { default: { app } } } }, limits: { idleMinutes: 0.02 } });
  const call = async (name: string, args: object): Promise<any> => {
    const res = await post(`${h.base}/api/mcp/keeps/mcp`, h.tokens.alice, rpc("tools/call", { name, arguments: args }));
    assert.equal(res.status, 200);
    return ((await res.json()) as any).result.content[0].text;
  };
  const record = async (): Promise<ToolSessionRecord | undefined> => h.store.get<ToolSessionRecord>("tool-sessions", "alice\nkeeps\ndefault");
  const stateDir = await call("where", {});
  assert.equal(statSync(stateDir).mode & 0o777, 0o700);
  if (IS_ROOT) assert.equal(statSync(stateDir).uid, NOBODY.uid, "the session's account owns it");
  const job = JSON.parse(await call("double", { n: 21 }));
  // Not fetched yet (a job's result is read once): finished, on disk.
  const onDisk = join(stateDir, "runs", `${job.job_id}.json`);
  for (let i = 0; i < 400 && !(existsSync(onDisk) && JSON.parse(readFileSync(onDisk, "utf8")).status === "completed"); i++)
    await new Promise((r) => setTimeout(r, 25));
  const poll = async (): Promise<any> => JSON.parse(await call("get_job_result", { job_id: job.job_id }));
  const first = (await record())!.instance;

  await h.waitForLog(/tool session idle; stopping/);
  assert.deepEqual(await poll(), { status: "done", job_id: job.job_id, result: 42 }, "answered by the next session, from the state directory");
  assert.notEqual((await record())!.instance, first);
  assert.equal(await call("where", {}), stateDir);
});

test("state directories are one per (person, tool, revision), the account's alone, and the root is checked", async (t) => {
  const base = tempDir(t);
  const root = join(base, "root");
  const a = await sessionStateDir(root, "alice", "sim", "default", null);
  assert.equal(await sessionStateDir(root, "alice", "sim", "default", null), a);
  assert.notEqual(await sessionStateDir(root, "alice", "sim", "dev", null), a);
  assert.notEqual(await sessionStateDir(root, "bob", "sim", "default", null), a);
  assert.equal(statSync(root).mode & 0o777, 0o711, "passable, not listable");
  assert.equal(statSync(a).mode & 0o777, 0o700);

  // A root someone else made first, or a link to one, is refused.
  const linked = join(base, "linked");
  symlinkSync(root, linked);
  await assert.rejects(sessionStateDir(linked, "alice", "sim", "default", null), SessionStateDirError);
  const file = join(base, "file");
  writeFileSync(file, "");
  await assert.rejects(sessionStateDir(file, "alice", "sim", "default", null), SessionStateDirError);

  if (!IS_ROOT) return;
  const theirs = join(base, "theirs");
  mkdirSync(theirs, { mode: 0o711 });
  chownSync(theirs, NOBODY.uid, NOBODY.gid);
  await assert.rejects(sessionStateDir(theirs, "alice", "sim", "default", null), SessionStateDirError);
  // The account's own; another account's folder under the same name is replaced, not handed over.
  const n = await sessionStateDir(root, "carol", "sim", "default", NOBODY);
  assert.equal(statSync(n).uid, NOBODY.uid);
  writeFileSync(join(n, "old"), "x");
  const again = await sessionStateDir(root, "carol", "sim", "default", null);
  assert.equal(again, n);
  assert.equal(lstatSync(again).uid, 0);
  assert.throws(() => statSync(join(again, "old")), /ENOENT/);
});
