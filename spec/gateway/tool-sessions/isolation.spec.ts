// `"isolation": "shared"`: one real start_mcp (the demo app) for everyone, each person in
// their own MCP sessions. Another person's session id is unknown to them, nothing reaches
// the shared server outside a session, each person's calls and sessions are bounded, and a
// crash of the shared server ends everyone's sessions once and starts it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Upstream } from "../../../lib/gateway/relay/forward.ts";
import { SharedSessions } from "../../../lib/gateway/tool-sessions/isolation.ts";
import type { ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";
import { openSse } from "../../helpers/sse-client.ts";
import { json, post, rpc, startHarness, type Harness } from "../helpers.ts";

const SHARED = { app: "fixtures/demo/app.ts", isolation: "shared" };
const ENV = { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } };
const INIT = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } });

async function start(
  t: { after(fn: () => unknown): void },
  limits: Record<string, unknown> = {},
): Promise<Harness & { mcp: string; init(token: string): Promise<string> }> {
  const h = await startHarness(t, { tools: { demo: { revisions: { default: SHARED } } }, limits }, ENV);
  const mcp = `${h.base}/api/mcp/demo/mcp`;
  const init = async (token: string): Promise<string> => {
    const res = await post(mcp, token, INIT);
    assert.equal(res.status, 200);
    await res.text();
    return res.headers.get("mcp-session-id")!;
  };
  return Object.assign(h, { mcp, init });
}

async function sharedRecords(h: Harness): Promise<ToolSessionRecord[]> {
  return (await h.store.list<ToolSessionRecord>("tool-sessions")).map((r) => r.value);
}

const call = (name: string, args: Record<string, unknown>, id = 2): string => rpc("tools/call", { name, arguments: args }, id);

test("shared: one tool server for everyone; another person's session id is unknown to them", { timeout: 120_000 }, async (t) => {
  const h = await start(t);
  const alices = await h.init(h.tokens.alice);
  const bobs = await h.init(h.tokens.bob);
  const recs = await sharedRecords(h);
  assert.equal(recs.length, 1, "one tool server for both");
  assert.equal(recs[0]!.user, "");
  assert.equal(recs[0]!.weberPrefix, undefined, "no session proxy path: its cookie would be one person's");

  const added = await post(h.mcp, h.tokens.alice, call("add", { a: 2, b: 3 }), { "mcp-session-id": alices });
  assert.equal(added.status, 200);
  assert.match(await added.text(), /"5"|5/);
  for (const [method, body] of [
    ["POST", rpc("tools/list")],
    ["POST", rpc("tasks/list")],
    ["GET", undefined],
    ["DELETE", undefined],
  ] as const) {
    const res = await fetch(h.mcp, {
      method,
      headers: {
        authorization: `Bearer ${h.tokens.bob}`,
        "mcp-session-id": alices,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
    assert.equal(res.status, 404, `${method} with another person's session`);
    assert.equal((await json(res)).error, "unknown_session");
  }
  const still = await post(h.mcp, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": alices });
  assert.equal(still.status, 200, "bob's attempts did not end alice's session");
  await still.text();
  const own = await post(h.mcp, h.tokens.bob, rpc("tools/list"), { "mcp-session-id": bobs });
  assert.equal(own.status, 200);
  await own.text();
});

test("shared: nothing reaches the shared server outside a person's session", { timeout: 120_000 }, async (t) => {
  const h = await start(t);
  await h.init(h.tokens.alice);
  const refused = async (res: Response, what: string): Promise<void> => {
    assert.equal(res.status, 400, what);
    assert.equal((await json(res)).error, "session_required", what);
  };
  await refused(await post(h.mcp, h.tokens.bob, rpc("tasks/list")), "a sessionless request");
  await refused(await post(h.mcp, h.tokens.bob, rpc("tasks/list"), { "mcp-protocol-version": "2026-07-28" }), "a stateless (2026-07-28) request");
  await refused(await post(`${h.base}/api/mcp/demo/tools/add`, h.tokens.bob, JSON.stringify({ a: 1, b: 2 })), "a REST call");
  const info = await json(await fetch(`${h.base}/api/mcp/demo/sse`, { headers: { authorization: `Bearer ${h.tokens.bob}` } }));
  assert.equal(info.cookie_header, "", "legacy clients get the gateway's own routes, never the shared server's");
  assert.equal(info.post_endpoint, `${h.base}/api/mcp/demo/mcp`);
  // The routes that open a session for the caller still work: each opens one of theirs.
  const root = await post(`${h.base}/api/mcp/demo`, h.tokens.bob, rpc("tools/list"));
  assert.equal(root.status, 200);
  await root.text();
});

const ASKS = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo: { name: "s", version: "1" } });

/** Starts `ask_user` in `session`: in flight until its question is answered; resolves once the question came. */
async function ask(t: { after(fn: () => unknown): void }, h: Harness & { mcp: string }, token: string, session: string) {
  const hold = new AbortController();
  t.after(() => hold.abort());
  const asking = await fetch(h.mcp, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "mcp-session-id": session, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: call("ask_user", { timeout: 300 }),
    signal: hold.signal,
  });
  assert.equal(asking.status, 200);
  const reader = asking.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const until = async (pattern: RegExp): Promise<string> => {
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return text;
  };
  await until(/elicitation\/create.*\n\n/s);
  const question = JSON.parse(/^data: (.*elicitation\/create.*)$/m.exec(text)![1]!) as { id: number | string };
  return { question, until };
}

async function opened(h: Harness & { mcp: string }, token: string): Promise<string> {
  const res = await post(h.mcp, token, ASKS);
  await res.text();
  return res.headers.get("mcp-session-id")!;
}

test("shared: a person's elicitations are answered only through their own session", { timeout: 120_000 }, async (t) => {
  const h = await start(t);
  const alices = await opened(h, h.tokens.alice);
  const bobs = await h.init(h.tokens.bob);
  const { question, until } = await ask(t, h, h.tokens.alice, alices);
  const answer = (name: string): string => JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name } } });
  await (await post(h.mcp, h.tokens.bob, answer("Mallory"), { "mcp-session-id": bobs })).text();
  const refused = await post(h.mcp, h.tokens.bob, answer("Mallory"), { "mcp-session-id": alices });
  assert.equal(refused.status, 404, "nor through hers");
  await refused.text();
  await (await post(h.mcp, h.tokens.alice, answer("Alice"), { "mcp-session-id": alices })).text();
  const text = await until(/Hello, /);
  assert.match(text, /Hello, Alice!/);
  assert.doesNotMatch(text, /Mallory/);
});

test("shared is fair: per-person calls and sessions (429) are bounded, others go on", { timeout: 120_000 }, async (t) => {
  const h = await start(t, { upstreamRequestsPerUser: 1, sessionsPerUser: 2 });
  const alices = await opened(h, h.tokens.alice);
  const bobs = await h.init(h.tokens.bob);
  await ask(t, h, h.tokens.alice, alices);
  const second = await post(h.mcp, h.tokens.alice, call("add", { a: 1, b: 1 }, 3), { "mcp-session-id": alices });
  assert.equal(second.status, 429);
  assert.equal((await json(second)).error, "too_many_running");
  const others = await post(h.mcp, h.tokens.bob, call("add", { a: 1, b: 1 }, 3), { "mcp-session-id": bobs });
  assert.equal(others.status, 200, "another person's call is not held up");
  await others.text();

  await h.init(h.tokens.bob);
  const third = await post(h.mcp, h.tokens.bob, INIT);
  assert.equal(third.status, 429, "sessionsPerUser counts a person's sessions on the shared server");
  assert.equal((await json(third)).error, "too_many_user_sessions");
  const gone = await fetch(h.mcp, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.bob}`, "mcp-session-id": bobs } });
  assert.ok(gone.status < 300);
  await gone.text();
  await h.init(h.tokens.bob);
});

test("shared: a crash ends everyone's sessions once, and the next request starts the server again", { timeout: 120_000 }, async (t) => {
  const h = await start(t);
  const alices = await h.init(h.tokens.alice);
  const bobs = await h.init(h.tokens.bob);
  const [rec] = await sharedRecords(h);
  process.kill(-rec!.pid!, "SIGKILL");
  await h.waitForLog(/tool session crashed/);
  const first = await post(h.mcp, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": alices });
  assert.equal(first.status, 502);
  assert.equal((await json(first)).error, "tool_session_crashed");
  const bob = await post(h.mcp, h.tokens.bob, rpc("tools/list"), { "mcp-session-id": bobs });
  assert.equal(bob.status, 404, "the session lived in the crashed server: the client initializes again");
  await bob.text();
  const again = await h.init(h.tokens.alice);
  assert.notEqual(again, alices);
  const [restarted] = await sharedRecords(h);
  assert.notEqual(restarted!.pid, rec!.pid);
  const works = await post(h.mcp, h.tokens.alice, rpc("tools/list"), { "mcp-session-id": again });
  assert.equal(works.status, 200);
  await works.text();
});

test("shared: a person's idle MCP session is ended on the shared server", { timeout: 120_000 }, async (t) => {
  const h = await start(t, { idleMinutes: 0.02 });
  await h.init(h.tokens.alice);
  const line = await h.waitForLog(/shared MCP session idle; ended/);
  assert.equal(JSON.parse(line).status, 200, "the tool server ended it");
});

test("SharedSessions: places held while sessions open count like sessions; a release gives back one place, once", () => {
  const events: string[] = [];
  const shared = new SharedSessions({ sessionsPerUser: 2, idleTimeoutMs: 60_000 }, (e) => events.push(e));
  const up = { url: "http://127.0.0.1:9/", agent: undefined } as unknown as Upstream;
  const first = shared.reserve("ada", "demo", "default", "i1");
  const second = shared.reserve("ada", "demo", "default", "i1");
  assert.throws(() => shared.reserve("ada", "demo", "default", "i1"), { error: "too_many_user_sessions" }, "both places are held while opening");
  shared.reserve("bob", "demo", "default", "i1")();
  shared.use("ada", "demo", "default", "i1", up, "s1");
  first();
  first();
  assert.throws(() => shared.admit("ada", "demo", "default", "i1"), { error: "too_many_user_sessions" }, "a second release gave nothing back");
  second();
  shared.admit("ada", "demo", "default", "i1");
  shared.ended("i1", "no-such-session");
  shared.ended("i1", "s1");
  shared.reserve("ada", "demo", "default", "i1");
  shared.reserve("ada", "demo", "default", "i1");
  assert.deepEqual(events, []);
});

test("shared: concurrent initializes and legacy streams take their places as they open", { timeout: 120_000 }, async (t) => {
  const h = await start(t, { sessionsPerUser: 2, ratePerSecond: 10_000, rateBurst: 10_000 });
  const statuses = await Promise.all(
    [1, 2, 3, 4].map(async () => {
      const res = await post(h.mcp, h.tokens.alice, INIT);
      await res.text();
      return res.status;
    }),
  );
  assert.deepEqual(
    statuses.sort((a, b) => a - b),
    [200, 200, 429, 429],
    "only sessionsPerUser initializes pass, however many race",
  );

  const sse = `${h.base}/api/mcp/demo/sse`;
  const stream = () => openSse(sse, { headers: { authorization: `Bearer ${h.tokens.bob}`, accept: "text/event-stream" }, timeoutMs: 60_000 });
  const first = await stream();
  t.after(() => first.close());
  await first.until("endpoint");
  const second = await stream();
  t.after(() => second.close());
  const endpoint = new URL((await second.until("endpoint")).data, h.base).href;
  const init = await post(endpoint, h.tokens.bob, INIT);
  assert.equal(init.status, 202);
  await init.text();
  await second.nextMessage();
  const third = await stream();
  assert.equal(third.status, 429, "a held stream holds a place, whether or not its client initialized yet");
  assert.equal(JSON.parse(await third.text()).error, "too_many_user_sessions");
  second.close();
  await h.waitForLog(/"method":"GET","path":"\/api\/mcp\/demo\/sse","status":200/);
  const again = await stream();
  t.after(() => again.close());
  assert.equal(again.status, 200, "a closed stream gave its place back");
});
