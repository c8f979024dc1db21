// The audit trail: one line per tool call, resource read and tool-session start and stop, with
// who, what, how it went and sizes, never arguments, results or tokens; a file only its owner
// reads, rotated by size under load; a stalled sink costs dropped lines, never a waiting request.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { AuditTrail } from "../../../lib/gateway/audit/trail.ts";
import { auditFiles } from "../../../lib/gateway/audit/files.ts";
import { NO_AUDIT } from "../../../lib/gateway/config/audit-settings.ts";
import { auditingLogger } from "../../../lib/gateway/audit/oauth-events.ts";
import { toolSessionEvents } from "../../../lib/gateway/audit/session-events.ts";
import { GatewayMetrics } from "../../../lib/gateway/operations/metrics.ts";
import { silentLogger } from "../../../lib/util/logger.ts";
import { fake, json, post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "audit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- lines of a JSON file, read for assertions
function lines(file: string): any[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

test("tool calls, resource reads, REST calls and tool sessions each leave one line: who, what, sizes; no secrets", async (t) => {
  const dir = join(tempDir(t), "trail");
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } }, audit: { dir } });
  const url = `${h.base}/api/mcp/fake/mcp`;
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "user-agent": "spec-client/1.0 (linux)" };
  await init.text();
  const call = await post(url, h.tokens.alice, rpc("tools/call", { name: "echo", arguments: { text: "SECRET-ARGUMENT" } }, 2), session);
  await call.text();
  const read = await post(url, h.tokens.alice, rpc("resources/read", { uri: `${h.base}/api/mcp/fake/ui://fake/page` }, 3), session);
  assert.equal((await json(read)).result.contents[0].text, "read");
  await (await post(`${h.base}/api/mcp/fake/tools/echo`, h.tokens.alice, '{"text":"SECRET-REST"}')).text();
  // Not audited: listings and pings are neither calls nor reads.
  await (await post(url, h.tokens.alice, rpc("ping", {}, 4), session)).text();
  await h.gw.close();

  const file = join(dir, "audit.jsonl");
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const raw = readFileSync(file, "utf8");
  for (const secret of ["SECRET-ARGUMENT", "SECRET-REST", h.tokens.alice, "hubsess", '"text"'])
    assert.ok(!raw.includes(secret), "no arguments, results, tokens or cookies");
  const all = lines(file);
  assert.deepEqual(
    all.map((l) => l.event),
    ["session.start", "tool.call", "resource.read", "tool.call", "session.stop"],
  );
  const [start, rpcCall, resource, rest, stop] = all;
  assert.equal(start.backend, "command");
  assert.equal(start.person, "alice");
  assert.ok(start.ms >= 0);
  assert.deepEqual(
    {
      person: rpcCall.person,
      tool: rpcCall.tool,
      revision: rpcCall.revision,
      method: rpcCall.method,
      name: rpcCall.name,
      outcome: rpcCall.outcome,
      status: rpcCall.status,
      client: rpcCall.client,
    },
    { person: "alice", tool: "fake", revision: "default", method: "tools/call", name: "echo", outcome: "ok", status: 200, client: "spec-client/1.0" },
  );
  assert.ok(rpcCall.bytesIn > 0 && rpcCall.bytesOut > 0 && rpcCall.ms >= 0);
  assert.match(rpcCall.time, /^\d{4}-\d\d-\d\dT/);
  assert.equal(resource.name, "ui://fake/page");
  assert.deepEqual([rest.method, rest.name, rest.revision], ["POST tools", "echo", "default"]);
  assert.deepEqual([stop.event, stop.reason, stop.backend], ["session.stop", "shutdown", "command"]);
});

test("a call refused before its tool session is an error line; with tracing on it names its trace", async (t) => {
  const dir = join(tempDir(t), "trail");
  const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  const h = await startHarness(
    t,
    { tools: { fake: { revisions: { default: fake() } } }, audit: { dir } },
    { telemetryEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/" } },
  );
  const url = `${h.base}/api/mcp/fake/mcp`;
  const unknown = await post(url, h.tokens.alice, rpc("tools/call", { name: "x", arguments: {}, _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } }), {
    "mcp-session-id": "nope",
  });
  assert.equal(unknown.status, 404);
  await unknown.text();
  const ok = await post(url, h.tokens.alice, rpc("tools/call", { name: "y", arguments: {}, _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } }));
  await ok.text();
  await h.gw.close();
  const calls = lines(join(dir, "audit.jsonl")).filter((l) => l.event === "tool.call");
  assert.deepEqual(
    calls.map((l) => [l.outcome, l.status, l.traceId]),
    [
      ["error", 404, TRACE],
      ["ok", 200, TRACE],
    ],
  );
});

test("under a bounded load the file rotates by size: every line kept whole, owner-only, old files pruned", async (t) => {
  const dir = join(tempDir(t), "trail");
  const trail = new AuditTrail({ ...NO_AUDIT, sink: "file", dir, maxFileBytes: 4096, keepFiles: 3, queueLines: 100_000 });
  const sent = 2_000;
  for (let i = 0; i < sent; i++) trail.record({ event: "tool.call", person: `p${i % 7}`, tool: "t", outcome: "ok", ms: i });
  await trail.close();
  const files = await auditFiles(dir);
  assert.equal(files.length, 4, "three rotated files kept, and the current one");
  assert.ok(files.at(-1)!.endsWith("/audit.jsonl"));
  let kept = 0;
  let last = -1;
  for (const f of files) {
    assert.equal(statSync(f).mode & 0o777, 0o600);
    assert.ok(statSync(f).size <= 4096);
    for (const l of lines(f)) {
      assert.ok(l.ms > last, "oldest file first, lines in order");
      last = l.ms;
      kept++;
    }
  }
  assert.equal(last, sent - 1);
  assert.equal(trail.written, sent);
  assert.equal(trail.dropped, 0);
  assert.ok(kept < sent, "the oldest files were removed");
  assert.ok(readdirSync(dir).length === 4);
});

test("a stalled sink: record() returns at once, the queue stays bounded and dropped lines are counted", async () => {
  const stalled = new Writable({ write: () => {} });
  const trail = new AuditTrail({ ...NO_AUDIT, sink: "stdout", queueLines: 10 }, { stdout: stalled });
  for (let i = 0; i < 1000; i++) trail.record({ event: "tool.call", outcome: "ok" });
  // One batch is with the stalled stream, ten wait; the rest are dropped.
  assert.equal(trail.dropped, 1000 - 1 - 10);
  assert.equal(trail.written, 0);
});

test("a folder other accounts can enter is refused: lines are dropped and the failure said once", async (t) => {
  const dir = join(tempDir(t), "open");
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const errors: string[] = [];
  const trail = new AuditTrail({ ...NO_AUDIT, sink: "file", dir }, { onError: (code) => errors.push(code) });
  trail.record({ event: "tool.call", outcome: "ok" });
  await trail.flush();
  trail.record({ event: "tool.call", outcome: "ok" });
  await trail.close();
  assert.deepEqual(errors, ["HUBMCP_AUDIT_FOLDER_OPEN"]);
  assert.equal(trail.dropped, 2);
  assert.deepEqual(readdirSync(dir), []);
});

test("stdout sink and sign-ins: the OAuth server's events become lines, other log lines do not", async () => {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      out.push(String(chunk));
      done();
    },
  });
  const trail = new AuditTrail({ ...NO_AUDIT, sink: "stdout" }, { stdout: sink });
  const logger = auditingLogger(silentLogger, trail);
  logger.info("oauth sign-in", { user: "ada" });
  logger.info("oauth grant approved", { user: "ada", client_id: "c1" });
  logger.warn("oauth refresh token reused; grant revoked", { client_id: "c1" });
  logger.warn("oauth code replayed; grant revoked", { client_id: "c2" });
  logger.info("oauth client registered", { client_id: "c3" });
  logger.debug("x");
  logger.error("y");
  await trail.close();
  const got = out
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    got.map((l) => [l.event, l.person ?? null, l.client ?? null, l.reason ?? null]),
    [
      ["sign-in", "ada", null, null],
      ["grant.approved", "ada", "c1", null],
      ["grant.revoked", null, "c1", "refresh_token_reused"],
      ["grant.revoked", null, "c2", "code_replayed"],
    ],
  );
  const off = new AuditTrail(NO_AUDIT);
  off.record({ event: "sign-in", outcome: "ok" });
  assert.equal(off.active, false);
  assert.equal(off.written + off.dropped, 0);
});

test("gateway.json's audit section: checked key by key", () => {
  const base = { tools: { t: { revisions: { default: { url: "http://127.0.0.1:1/" } } } } };
  const parse = (audit: unknown) => parseGatewayConfig({ ...base, audit }, "/srv/hub").audit;
  assert.equal(parseGatewayConfig(base, "/").audit.sink, "off");
  assert.deepEqual(parse({ dir: "audit" }), { ...NO_AUDIT, sink: "file", dir: "/srv/hub/audit" });
  assert.equal(parse({ sink: "stdout", keepFiles: 5 }).keepFiles, 5);
  assert.equal(parse({ sink: "file", dir: "/var/log/hub", maxFileBytes: 8192, queueLines: 5 }).dir, "/var/log/hub");
  for (const [bad, key] of [
    [[], /audit/],
    [{ other: 1 }, /audit\.other/],
    [{ sink: "syslog" }, /audit\.sink/],
    [{ sink: "file" }, /audit\.dir/],
    [{ sink: "stdout", dir: "x" }, /audit\.dir/],
    [{ dir: "x", maxFileBytes: 10 }, /audit\.maxFileBytes/],
    [{ dir: "x", keepFiles: 1.5 }, /audit\.keepFiles/],
  ] as const) {
    assert.throws(() => parse(bad), key);
  }
});

test("calls through the one connector (/mcp) are audited under the tool they reach", { timeout: 60_000 }, async (t) => {
  const dir = join(tempDir(t), "trail");
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize")
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    if (msg.method === "tools/list") return reply(res, msg, { tools: [{ name: "solve", inputSchema: { type: "object" } }] });
    return reply(res, msg, { content: [{ type: "text", text: "SECRET-RESULT" }] });
  });
  const h = await startHarness(t, { tools: { sim: { revisions: { default: { url: stub.url } } } }, audit: { dir } });
  const url = `${h.base}/mcp`;
  const init = await post(
    url,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  await init.text();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await (await post(url, h.tokens.alice, rpc("tools/list"), session)).text();
  const call = await post(url, h.tokens.alice, rpc("tools/call", { name: "sim_solve", arguments: { x: "SECRET-ARGUMENT" } }, 2), session);
  assert.match(await call.text(), /SECRET-RESULT/);
  await h.gw.close();
  const raw = readFileSync(join(dir, "audit.jsonl"), "utf8");
  assert.ok(!raw.includes("SECRET"));
  const calls = lines(join(dir, "audit.jsonl")).filter((l) => l.event === "tool.call");
  assert.deepEqual(
    calls.map((l) => [l.person, l.tool, l.revision, l.method, l.name, l.status]),
    [["alice", "sim", "default", "tools/call", "solve", 200]],
  );
});

test("each entry of a /mcp batch is audited when its own call settles: its own time and outcome", { timeout: 60_000 }, async (t) => {
  const written: string[] = [];
  let fastRecorded!: () => void;
  const fastSeen = new Promise<void>((resolve) => (fastRecorded = resolve));
  const sink = new Writable({
    write: (chunk, _enc, done) => {
      written.push(String(chunk));
      if (written.join("").includes('"name":"fast"')) fastRecorded();
      done();
    },
  });
  const audit = new AuditTrail({ ...NO_AUDIT, sink: "stdout" }, { stdout: sink });
  let released = "";
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method === "initialize")
      return reply(res, msg, { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "stub", version: "1" } });
    if (msg.method === "tools/list") return reply(res, msg, { tools: ["fast", "slow"].map((name) => ({ name, inputSchema: { type: "object" } })) });
    if (msg.method !== "tools/call") return reply(res, msg, {});
    if ((msg.params as { name?: string }).name === "fast") return reply(res, msg, { content: [{ type: "text", text: "quick" }] });
    // The slow call answers (with no answer the gateway can read) once the fast one's line is written; recorded at the
    // batch's close instead, that line never comes first and the bound releases it.
    const answer = (why: string): void => {
      if (released) return;
      released = why;
      clearTimeout(bound);
      res.writeHead(502, { "content-type": "text/plain" });
      res.end("bad gateway");
    };
    const bound = setTimeout(() => answer("bound"), 5_000);
    void fastSeen.then(() => answer("line"));
  });
  const h = await startHarness(t, { tools: { sim: { revisions: { default: { url: stub.url } } } } }, { audit });
  const url = `${h.base}/mcp`;
  const initParams = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } };
  const init = await post(url, h.tokens.alice, rpc("initialize", initParams));
  await init.text();
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  await (await post(url, h.tokens.alice, rpc("tools/list"), session)).text();
  const call = (name: string, id: number) => rpc("tools/call", { name: `sim_${name}`, arguments: {} }, id);
  const res = await post(url, h.tokens.alice, `[${call("slow", 1)},${call("fast", 2)}]`, session);
  assert.equal(((await res.json()) as unknown[]).length, 2);
  await h.gw.close();
  assert.equal(released, "line", "the fast entry's line was written while the slow one ran");
  const entries = written
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.event === "tool.call");
  assert.deepEqual(
    entries.map((l) => [l.name, l.outcome, l.status]),
    [
      ["fast", "ok", 200],
      ["slow", "error", 502],
    ],
  );
  assert.ok(entries[1].ms > entries[0].ms, "each entry has its own time");
  assert.ok(entries[0].bytesOut > 0 && entries[1].bytesOut === 0);
});

test("a failing stdout: its lines are dropped, the failure said once per streak; sparse session events still count", async () => {
  const errors: string[] = [];
  for (const err of [Object.assign(new Error("closed"), { code: "EPIPE" }), new Error("no code")]) {
    const failing = new Writable({ write: (_chunk, _enc, done) => done(err) });
    const trail = new AuditTrail({ ...NO_AUDIT, sink: "stdout" }, { stdout: failing, onError: (code) => errors.push(code) });
    trail.record({ event: "tool.call", outcome: "ok" });
    await trail.flush();
    trail.record({ event: "tool.call", outcome: "ok" });
    await trail.close();
    assert.deepEqual([trail.dropped, trail.written], [2, 0]);
  }
  assert.deepEqual(errors, ["EPIPE", "EIO"], "told once per failing sink");

  const metrics = new GatewayMetrics();
  const out: string[] = [];
  const seen = new AuditTrail({ ...NO_AUDIT, sink: "stdout" }, { stdout: new Writable({ write: (c, _e, done) => (out.push(String(c)), done()) }) });
  const events = toolSessionEvents(metrics, seen);
  events("tool session started", {});
  events("tool session failed to start", { ms: Number.NaN });
  events("tool session stopped", { reason: "crashed", ms: 5 });
  events("tool session idle; stopping", {});
  await seen.close();
  assert.match(metrics.render(0), /hubmcp_gateway_tool_session_starts_total\{backend="unknown"\} 1/);
  assert.deepEqual(
    out
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((l) => [JSON.parse(l).event, JSON.parse(l).outcome]),
    [
      ["session.start", "ok"],
      ["session.start-failed", "error"],
      ["session.stop", "error"],
    ],
  );
});

test("a change to the tool registry through the admin API leaves one line: who, what, the tool before and after, no paths", async (t) => {
  const dir = join(tempDir(t), "trail");
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } }, audit: { dir }, admin: { groups: ["staff"] } });
  const put = await fetch(`${h.base}/admin/api/tools/calc`, {
    method: "PUT",
    headers: { authorization: `Bearer ${h.tokens.carol}`, "content-type": "application/json" },
    body: JSON.stringify({ groups: ["staff"], revisions: { default: { url: "http://127.0.0.1:9/SECRET-PATH/" } } }),
  });
  assert.equal(put.status, 200);
  await put.text();
  const removed = await fetch(`${h.base}/admin/api/tools/calc`, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.carol}` } });
  assert.equal(removed.status, 200);
  await removed.text();
  await h.gw.close();
  const raw = readFileSync(join(dir, "audit.jsonl"), "utf8");
  assert.ok(!raw.includes("SECRET-PATH"), "a revision's address, path or command is never written");
  const changes = raw
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.event === "registry.change");
  assert.deepEqual(
    changes.map((l) => [l.person, l.method, l.tool, l.before, l.after]),
    [
      ["carol", "put", "calc", "none", "revisions=default:url; default=default; groups=staff"],
      ["carol", "remove", "calc", "revisions=default:url; default=default; groups=staff", "none"],
    ],
  );
});
