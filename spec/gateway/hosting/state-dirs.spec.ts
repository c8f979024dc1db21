// A tool session's state directory is its (person, tool, revision)'s: a session started after
// an idle stop answers for the async runs of its predecessor, and the folders are checked,
// never assumed, since the root lives where other accounts can make names first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, lstatSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { toolSessionStateDir, ToolSessionStateDirError, StateRoots } from "../../../lib/gateway/hosting/state-dirs.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import type { ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";
import { LIB_INDEX, tempDir } from "../../helpers/launcher-fixtures.ts";
import { IS_ROOT } from "../../helpers/os-user.ts";
import { post, rpc, startHarness } from "../helpers.ts";

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
  const a = await toolSessionStateDir(root, "alice", "sim", "default", null);
  assert.equal(await toolSessionStateDir(root, "alice", "sim", "default", null), a);
  assert.notEqual(await toolSessionStateDir(root, "alice", "sim", "dev", null), a);
  assert.notEqual(await toolSessionStateDir(root, "bob", "sim", "default", null), a);
  assert.equal(statSync(root).mode & 0o777, 0o711, "passable, not listable");
  assert.equal(statSync(a).mode & 0o777, 0o700);

  // A root someone else made first, or a link to one, is refused.
  const linked = join(base, "linked");
  symlinkSync(root, linked);
  await assert.rejects(toolSessionStateDir(linked, "alice", "sim", "default", null), ToolSessionStateDirError);
  const file = join(base, "file");
  writeFileSync(file, "");
  await assert.rejects(toolSessionStateDir(file, "alice", "sim", "default", null), ToolSessionStateDirError);

  if (!IS_ROOT) return;
  const theirs = join(base, "theirs");
  mkdirSync(theirs, { mode: 0o711 });
  chownSync(theirs, NOBODY.uid, NOBODY.gid);
  await assert.rejects(toolSessionStateDir(theirs, "alice", "sim", "default", null), ToolSessionStateDirError);
  // The account's own; another account's folder under the same name is replaced, not handed over.
  const n = await toolSessionStateDir(root, "carol", "sim", "default", NOBODY);
  assert.equal(statSync(n).uid, NOBODY.uid);
  writeFileSync(join(n, "old"), "x");
  const again = await toolSessionStateDir(root, "carol", "sim", "default", null);
  assert.equal(again, n);
  assert.equal(lstatSync(again).uid, 0);
  assert.throws(() => statSync(join(again, "old")), /ENOENT/);
});

/** The old fixed name of the app sessions' state root, which any account could make first. */
const OLD_ROOT = `hubmcp-gw-state-${process.getuid?.()}`;

/** A shared temp folder (sticky, writable by all, as /tmp is) standing in for this process's TMPDIR until `t` ends. */
function sharedTmp(t: { after(fn: () => unknown): void }): string {
  const tmp = tempDir(t, "hubmcp-sharedtmp-");
  chmodSync(tmp, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  t.after(() => (before === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = before)));
  return tmp;
}

const asNobody = (...argv: string[]): void => void execFileSync("runuser", ["-u", "nobody", "--", ...argv], { stdio: "ignore" });

test("another account making the state root's old name first stops no tool session", { skip: !IS_ROOT && "needs root to act as nobody" }, async (t) => {
  const tmp = sharedTmp(t);
  asNobody("mkdir", "-m", "0777", join(tmp, OLD_ROOT));
  const app = join(tempDir(t), "app.mjs");
  chmodSync(dirname(app), 0o755);
  writeFileSync(
    app,
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
export const server = new McpServer("keeps");
server.tool(function where() { return process.env.HUBMCP_STATE_DIR; });
`,
  );
  const h = await startHarness(t, { tools: { keeps: { revisions: { default: { app } } } } });
  const res = await post(`${h.base}/api/mcp/keeps/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: {} }));
  assert.equal(res.status, 200, await res.clone().text());
  const stateDir = ((await res.json()) as any).result.content[0].text as string;
  const root = dirname(stateDir);
  assert.equal(dirname(root), tmp);
  assert.match(basename(root), /^hubmcp-gw-state-\w{6}$/, "a name nobody could make first");
  assert.equal(lstatSync(root).uid, 0);
  assert.equal(lstatSync(root).mode & 0o7777, 0o711);
  assert.equal(lstatSync(join(tmp, OLD_ROOT)).uid, NOBODY.uid, "the other account's folder is left alone, and unused");

  // The store remembers the root, so a restarted gateway finds it; one gone and made again by
  // another account under the same name is replaced, never used.
  const roots = new StateRoots(h.store);
  assert.equal(await roots.root({ kind: "app", parent: tmp }), root);
  rmSync(root, { recursive: true });
  asNobody("mkdir", "-m", "0711", root);
  const next = await roots.root({ kind: "app", parent: tmp });
  assert.notEqual(next, root);
  assert.equal(lstatSync(next).uid, 0);
  rmSync(root, { recursive: true });
  // Linked to another account's folder: replaced too.
  symlinkSync(tmp, root);
  chmodSync(next, 0o755);
  assert.equal(await roots.root({ kind: "app", parent: tmp }), next, "ours, its mode put back");
  assert.equal(lstatSync(next).mode & 0o7777, 0o711);
  rmSync(root);
});

test("replicas replacing one stale state root at once settle on one", async (t) => {
  const parent = tempDir(t);
  const store = new MemoryRecordStore();
  const roots = await Promise.all([1, 2, 3, 4].map(() => new StateRoots(store).root({ kind: "slurm", parent })));
  assert.equal(new Set(roots).size, 1);
  assert.deepEqual(readdirSync(parent), [basename(roots[0]!)], "the losers' folders are removed");
  assert.match(basename(roots[0]!), /^\.hubmcp-state-\w{6}$/);
  // A record naming a folder elsewhere is not trusted either.
  await store.put("state-roots", [...(await store.list("state-roots"))][0]!.id, { path: join(tempDir(t), ".hubmcp-state-xxxxxx") });
  const other = await new StateRoots(store).root({ kind: "slurm", parent: `${parent}/` });
  assert.equal(dirname(other), parent);
});

test("a tool session that cannot start says why in the log, without its arguments", async (t) => {
  const missing = join(tempDir(t), "no-such-tmp");
  const before = process.env.TMPDIR;
  process.env.TMPDIR = missing;
  t.after(() => (before === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = before)));
  const h = await startHarness(t, { tools: { keeps: { revisions: { default: { app: join(missing, "app.mjs") } } } } });
  const res = await post(`${h.base}/api/mcp/keeps/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: { secret: "s3cr3t" } }));
  assert.equal(res.status, 502);
  const line = await h.waitForLog(/tool session failed to start/);
  assert.match(line, /"reason":"mkdtemp failed with ENOENT"/);
  assert.doesNotMatch(line, /s3cr3t|no-such-tmp/);

  const odd = await startHarness(
    t,
    { tools: { keeps: { revisions: { default: { app: join(missing, "app.mjs") } } } } },
    {
      launch: async () => {
        throw new Error("launcher text that may quote anything");
      },
    },
  );
  assert.equal((await post(`${odd.base}/api/mcp/keeps/mcp`, odd.tokens.alice, rpc("tools/list"))).status, 502);
  assert.match(await odd.waitForLog(/tool session failed to start/), /"reason":"an unexpected error"/);
});
