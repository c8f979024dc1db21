// Tool session lifecycle through the gateway: caps, crash recovery, a session that never
// becomes ready, idle stop, shutdown, and the per-user rate limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { FAKE_TOOL, post, pidsIn, ROOT, rpc, startHarness, json } from "../helpers.ts";
import { alive } from "../../helpers/launcher-fixtures.ts";
import { forgetToolSessionsOf } from "../../../lib/gateway/tool-sessions/records.ts";

function pidFile(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-gw-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The fake tool runs as the tool sessions' account (nobody under root) and writes here.
  chmodSync(dir, 0o777);
  return join(dir, "pids");
}

function tracked(file: string, mode = "normal"): { command: string[] } {
  return { command: ["/usr/bin/env", `FAKE_PID_FILE=${file}`, process.execPath, FAKE_TOOL, mode] };
}

test("caps: one session per user here (then 429), and the gateway's total (then 503), with Retry-After", async (t) => {
  const h = await startHarness(t, {
    tools: { fake: { revisions: { default: tracked(pidFile(t)), dev: tracked(pidFile(t)) } } },
    limits: { sessionsPerUser: 1, sessionsTotal: 2 },
  });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const first = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(first.status, 200);
  await first.text();
  const capped = await post(`${mcp}?revision=dev`, h.tokens.alice, rpc("ping"));
  assert.equal(capped.status, 429);
  assert.equal(capped.headers.get("retry-after"), "30");
  assert.equal(capped.headers.get("access-control-allow-origin"), "*");
  assert.equal((await json(capped)).error, "too_many_user_sessions");
  const other = await post(mcp, h.tokens.bob, rpc("ping"));
  assert.equal(other.status, 200);
  await other.text();
  const total = await post(mcp, h.tokens.carol, rpc("ping"));
  assert.equal(total.status, 503);
  assert.equal((await json(total)).error, "too_many_sessions");
});

test("caps can't be raced: twelve first requests at once with sessionsPerUser 3 start three tool sessions", async (t) => {
  const pids = pidFile(t);
  const revisions = { default: tracked(pids), ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`r${i}`, tracked(pids)])) };
  // On a data dir, as a hub runs: each store call is real I/O, which is where the check and the start drifted apart.
  const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-caps-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = new FileRecordStore(dataDir);
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("alice", "pw-alice", ["users"]);
  const { token } = (await new ApiTokens(store, accounts).create("alice"))!;
  const gw = await startGateway({
    config: parseGatewayConfig({ tools: { fake: { revisions } }, limits: { sessionsPerUser: 3, sessionsTotal: 50 } }, ROOT),
    store,
  });
  t.after(() => gw.close());
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(`${gw.url}api/mcp/fake/mcp?revision=r${i}`, token, rpc("ping"))));
  const statuses = await Promise.all(answers.map(async (a) => (await a.text(), a.status)));
  assert.equal(pidsIn(pids).length, 3, "three tool servers were started, no more");
  assert.equal(statuses.filter((s) => s === 200).length, 3);
  assert.equal(statuses.filter((s) => s === 429).length, 9);
});

test("a crashed tool session gives one 502, then a fresh session; old session ids end", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pids) } } } });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const init = await post(mcp, h.tokens.alice, rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } }));
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const crash = await post(mcp, h.tokens.alice, rpc("crash"), { "mcp-session-id": id });
  assert.equal(crash.status, 502);
  assert.equal(crash.headers.get("access-control-allow-origin"), "*");
  assert.equal((await json(crash)).error, "upstream_unavailable");
  const next = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(next.status, 200);
  await next.text();
  assert.equal(pidsIn(pids).length, 2);
  const old = await post(mcp, h.tokens.alice, rpc("ping"), { "mcp-session-id": id });
  assert.equal(old.status, 404);
  await old.text();
});

test("a crash between requests is reported once as 502", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pids) } } } });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const first = await post(mcp, h.tokens.alice, rpc("ping"));
  await first.text();
  process.kill(pidsIn(pids)[0]!, "SIGKILL");
  await h.waitForLog(/tool session crashed/);
  const reported = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(reported.status, 502);
  assert.equal((await json(reported)).error, "tool_session_crashed");
  const fresh = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(fresh.status, 200);
  await fresh.text();
});

test("a tool session that never becomes ready is killed and reported", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { slow: { revisions: { default: tracked(pids, "never-ready") } } }, limits: { startSeconds: 1 } });
  const res = await post(`${h.base}/api/mcp/slow/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(res.status, 504);
  assert.equal((await json(res)).error, "tool_session_not_ready");
  const [pid] = pidsIn(pids);
  assert.ok(pid && !alive(pid));
  assert.ok(h.logs.some((l) => l.includes("HUBMCP_SESSION_NEVER_READY")));
});

test("idle tool sessions are stopped; the next request starts a new one", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pids) } } }, limits: { idleMinutes: 0.0001 } });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  await (await post(mcp, h.tokens.alice, rpc("ping"))).text();
  await h.waitForLog(/tool session idle; stopping/);
  const [first] = pidsIn(pids);
  await (await post(mcp, h.tokens.alice, rpc("ping"))).text();
  assert.equal(pidsIn(pids).length, 2);
  assert.ok(!alive(first!));
});

test("a tool session whose records were forgotten elsewhere (its user removed) is stopped at the next sweep", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pids) } } }, limits: { idleMinutes: 0.1 } });
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("ping"))).text();
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.bob, rpc("ping"))).text();
  assert.equal(await forgetToolSessionsOf(h.store, "alice"), 1);
  await h.waitForLog(/tool session forgotten; stopping/);
  const [alices, bobs] = pidsIn(pids);
  // The line is logged as the stop begins: wait (bounded) for the process to be gone.
  for (let i = 0; i < 200 && alive(alices!); i++) await new Promise((done) => setTimeout(done, 25));
  assert.ok(!alive(alices!));
  assert.ok(alive(bobs!), "other users' sessions run on");
});

test("close() stops every tool session", async (t) => {
  const pids = pidFile(t);
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pids) } } } });
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("ping"))).text();
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.bob, rpc("ping"))).text();
  await h.gw.close();
  const started = pidsIn(pids);
  assert.equal(started.length, 2);
  for (const pid of started) assert.ok(!alive(pid));
});

test("per-user rate limit: 429 with Retry-After, other users unaffected", async (t) => {
  const h = await startHarness(t, { tools: { fake: { revisions: { default: tracked(pidFile(t)) } } }, limits: { ratePerSecond: 0.01, rateBurst: 2 } });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  for (let i = 0; i < 2; i++) await (await post(mcp, h.tokens.alice, rpc("ping"))).text();
  const limited = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.equal(limited.headers.get("access-control-allow-origin"), "*");
  await limited.text();
  const bob = await post(mcp, h.tokens.bob, rpc("ping"));
  assert.equal(bob.status, 200);
  await bob.text();
});
