// The gateway over real HTTP against the fake tool server: authentication and CORS on
// every answer, sealed session ids, the section-C routes, rewriting rules, operators'
// endpoints and hostile input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { fake, post, rpc, startHarness, type Harness, json } from "./helpers.ts";

const CONFIG = {
  tools: {
    fake: { revisions: { default: fake(), dev: fake() } },
    staffonly: { groups: ["staff"], revisions: { default: fake() } },
  },
  limits: { maxBodyBytes: 4096 },
};

function assertCors(res: Response): void {
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("access-control-allow-credentials"), null);
  assert.match(res.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
  assert.match(res.headers.get("access-control-expose-headers") ?? "", /Mcp-Session-Id/);
}

async function initialize(h: Harness, token = h.tokens.alice, path = "/api/mcp/fake/mcp"): Promise<string> {
  const res = await post(
    `${h.base}${path}`,
    token,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
  );
  assert.equal(res.status, 200);
  await res.text();
  return res.headers.get("mcp-session-id")!;
}

test("gateway routes, auth and rewriting", async (t) => {
  const h = await startHarness(t, CONFIG);
  const mcp = `${h.base}/api/mcp/fake/mcp`;

  await t.test("no token: 401 with the metadata URL, CORS-readable", async () => {
    const res = await post(mcp, undefined, rpc("ping"));
    assert.equal(res.status, 401);
    assertCors(res);
    assert.equal(res.headers.get("www-authenticate"), `Bearer resource_metadata="${h.base}/api/mcp/fake/mcp/.well-known/oauth-protected-resource"`);
    assert.equal((await json(res)).error, "unauthorized");
  });

  await t.test("a bad or revoked token: 401 invalid_token; the token is never logged", async () => {
    const res = await post(mcp, "hubmcp_aaaaaaaaaaaa_" + "x".repeat(43), rpc("ping"));
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate")!, /error="invalid_token"/);
    await res.text();
    assert.ok(!h.logs.some((l) => l.includes("hubmcp_")));
  });

  await t.test("preflight needs no token and allows the MCP headers", async () => {
    const res = await fetch(mcp, { method: "OPTIONS", headers: { origin: "https://host.example", "access-control-request-method": "POST" } });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    for (const name of ["Authorization", "Content-Type", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"]) {
      assert.match(res.headers.get("access-control-allow-headers")!, new RegExp(name));
    }
  });

  await t.test("protected-resource metadata at the spec path and the RFC 9728 location", async () => {
    for (const path of ["/api/mcp/fake/mcp/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp/fake/mcp"]) {
      const res = await fetch(`${h.base}${path}`);
      assert.equal(res.status, 200);
      assertCors(res);
      const body = await json(res);
      assert.equal(body.resource, `${h.base}/api/mcp/fake/mcp`);
      assert.deepEqual(body.authorization_servers, [`${h.base}/authorize`]);
    }
  });

  await t.test("a user outside the tool's groups: 403 naming them; a member gets in", async () => {
    const res = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.alice, rpc("ping"));
    assert.equal(res.status, 403);
    assertCors(res);
    assert.deepEqual((await json(res)).required_groups, ["staff"]);
    const ok = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.carol, rpc("ping"));
    assert.equal(ok.status, 200);
    await ok.text();
  });

  await t.test("sessions: sealed ids, bound to their user; the bearer never goes upstream", async () => {
    const id = await initialize(h);
    assert.match(id, /^g1\.[A-Za-z0-9_-]+$/);
    assert.ok(!id.includes("up-"));
    const res = await post(mcp, h.tokens.alice, rpc("seen"), { "mcp-session-id": id });
    assertCors(res);
    assert.equal(res.headers.get("mcp-session-id"), id);
    const seen = (await json(res)).result;
    assert.match(seen.session, /^up-\d+$/);
    assert.equal(seen.authorization, null);
    assert.equal(seen.cookie, "hubsess=abc%3Adef");
    assert.deepEqual(seen.env, { user: "alice", tool: "fake", revision: "default" });
    const stolen = await post(mcp, h.tokens.bob, rpc("seen"), { "mcp-session-id": id });
    assert.equal(stolen.status, 404);
    assertCors(stolen);
    await stolen.text();
    // A character in the middle: the last one of a base64url text may carry only padding bits.
    const at = Math.floor(id.length / 2);
    const tampered = id.slice(0, at) + (id[at] === "A" ? "B" : "A") + id.slice(at + 1);
    const bad = await post(mcp, h.tokens.alice, rpc("seen"), { "mcp-session-id": tampered });
    assert.equal(bad.status, 404);
    await bad.text();
  });

  await t.test("ping becomes {}; other answers keep their bytes", async () => {
    const ping = await post(mcp, h.tokens.alice, rpc("ping", {}, 7));
    assert.deepEqual(await json(ping), { jsonrpc: "2.0", id: 7, result: {} });
    const empty = await post(mcp, h.tokens.alice, rpc("empty", {}, 8));
    assert.equal(await empty.text(), '{"jsonrpc":"2.0","id":8,"result":{"items":[],"map":{}}}');
  });

  await t.test("resource URIs go out as the tool wrote them; one sent back with the gateway's address is stripped", async () => {
    const prefix = `${h.base}/api/mcp/fake/`;
    const list = await json(await post(mcp, h.tokens.alice, rpc("resources/list")));
    assert.equal(list.result.resources[0].uri, "ui://fake/page");
    const read = await json(await post(mcp, h.tokens.alice, rpc("resources/read", { uri: `${prefix}ui://fake/page` })));
    assert.equal(read.result.contents[0].uri, "ui://fake/page");
  });

  await t.test("notifications: 202", async () => {
    const res = await post(mcp, h.tokens.alice, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    assert.equal(res.status, 202);
    await res.text();
  });

  await t.test("?revision= picks a revision; an unknown one is 404 JSON", async () => {
    const dev = await json(await post(`${mcp}?revision=dev`, h.tokens.alice, rpc("seen")));
    assert.equal(dev.result.env.revision, "dev");
    const res = await post(`${mcp}?revision=nope`, h.tokens.alice, rpc("seen"));
    assert.equal(res.status, 404);
    assertCors(res);
    assert.equal((await json(res)).error, "unknown_revision");
  });

  await t.test("bootstrap GET /api/mcp/{tool}: endpoints and a usable session", async () => {
    const res = await fetch(`${h.base}/api/mcp/fake`, { headers: { authorization: `Bearer ${h.tokens.alice}` } });
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.tool, "fake");
    assert.equal(body.revision, "default");
    assert.equal(body.endpoints.mcp, `${h.base}/api/mcp/fake/mcp`);
    const again = await json(await fetch(`${h.base}/api/mcp/fake`, { headers: { authorization: `Bearer ${h.tokens.alice}`, "mcp-session-id": body.session } }));
    assert.equal(again.session, body.session);
    const onPath = await post(`${h.base}/api/mcp/fake/${body.session}`, h.tokens.alice, rpc("seen"));
    assert.match((await json(onPath)).result.session, /^up-\d+$/);
  });

  await t.test("POST /api/mcp/{tool} without a session mints one", async () => {
    const res = await post(`${h.base}/api/mcp/fake`, h.tokens.alice, rpc("seen"));
    assert.match(res.headers.get("mcp-session-id")!, /^g1\./);
    assert.match((await json(res)).result.session, /^up-\d+$/);
  });

  await t.test("GET …/mcp without a session: one complete SSE body whose endpoint works", async () => {
    const res = await fetch(mcp, { headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream" } });
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(res.headers.get("x-accel-buffering"), "no");
    assertCors(res);
    const text = await res.text();
    const m = /event: endpoint\ndata: (\/api\/mcp\/fake\/mcp\?session_id=\S+)/.exec(text);
    assert.ok(m, text);
    const seen = await json(await post(`${h.base}${m[1]}`, h.tokens.alice, rpc("seen")));
    assert.match(seen.result.session, /^up-\d+$/);
  });

  await t.test("GET …/mcp with a session relays the held stream, a comment first", async () => {
    const id = await initialize(h);
    const ac = new AbortController();
    const res = await fetch(mcp, {
      headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", "mcp-session-id": id },
      signal: ac.signal,
    });
    assert.equal(res.headers.get("x-accel-buffering"), "no");
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("notifications/message")) text += new TextDecoder().decode((await reader.read()).value);
    assert.ok(text.startsWith(": "));
    assert.match(text, /"session":"up-\d+"/);
    ac.abort();
  });

  await t.test("an SSE answer to a POST is relayed as a stream", async () => {
    const res = await post(mcp, h.tokens.alice, rpc("stream", {}, 5));
    assert.equal(res.headers.get("x-accel-buffering"), "no");
    assert.equal(res.headers.get("cache-control"), "no-cache, no-transform");
    const text = await res.text();
    assert.match(text, /notifications\/progress[\s\S]*"done":true/);
  });

  await t.test("REST tool route and openapi.json pass through", async () => {
    const rest = await post(`${h.base}/api/mcp/fake/tools/add`, h.tokens.alice, '{"a":1}');
    assert.equal((await json(rest)).result, "add");
    const doc = await fetch(`${h.base}/api/mcp/fake/openapi.json`, { headers: { authorization: `Bearer ${h.tokens.alice}` } });
    assert.equal((await json(doc)).openapi, "3.1.0");
  });

  await t.test("sse connection info for a command revision names gateway URLs, never the tool server's address or cookie", async () => {
    const info = await json(await fetch(`${h.base}/api/mcp/fake/sse`, { headers: { authorization: `Bearer ${h.tokens.alice}` } }));
    assert.deepEqual(info, { sse_endpoint: `${h.base}/api/mcp/fake/sse`, post_endpoint: `${h.base}/api/mcp/fake/mcp`, cookie_header: "" });
  });

  await t.test("GET …/sse from a client that takes neither an event stream nor JSON: 406 saying which to ask for", async () => {
    const sse = `${h.base}/api/mcp/fake/sse`;
    const refused = await fetch(sse, { headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/html" } });
    assert.equal(refused.status, 406);
    const body = (await json(refused)) as { error: string; message: string };
    assert.equal(body.error, "not_acceptable");
    assert.match(body.message, /Accept: text\/event-stream.+Accept: application\/json.+…\/mcp/);
    // JSON is still the answer for a client that takes it (curl sends */*).
    const asked = await fetch(sse, { headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "application/json" } });
    assert.equal(((await json(asked)) as { post_endpoint: string }).post_endpoint, `${h.base}/api/mcp/fake/mcp`);
  });

  await t.test("hostile input: clear 4xx, never 5xx, and the gateway keeps serving", async () => {
    const auth = { authorization: `Bearer ${h.tokens.alice}` };
    const cases: Array<[string, RequestInit, number]> = [
      [mcp, { method: "POST", headers: auth, body: "{not json" }, 400],
      [mcp, { method: "POST", headers: auth, body: "x".repeat(5000) }, 413],
      [`${h.base}/api/mcp/nope/mcp`, { method: "POST", headers: auth, body: rpc("ping") }, 404],
      [`${h.base}/api/mcp/fake%2Fmcp`, { method: "POST", headers: auth, body: rpc("ping") }, 400],
      [`${h.base}/api/mcp/fake/mcp`, { method: "PUT", headers: auth, body: rpc("ping") }, 405],
      [`${h.base}/api/mcp/fake/a/b/c`, { headers: auth }, 404],
      [`${h.base}/weber/x/y/z/`, {}, 401],
    ];
    for (const [url, init, status] of cases) {
      const res = await fetch(url, init);
      assert.equal(res.status, status, url);
      assertCors(res);
      await res.text();
    }
    // Raw requests: fetch would normalise these paths before sending them.
    const raw = (head: string): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(h.gw.port, "127.0.0.1", () => socket.write(head));
        let text = "";
        socket.on("data", (c) => (text += c));
        socket.on("close", () => resolve(text));
      });
    const bearer = `Authorization: Bearer ${h.tokens.alice}\r\nConnection: close\r\n`;
    assert.match(
      await raw(`GET /api/mcp/fake/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer}\r\n`),
      /^HTTP\/1\.1 400[\s\S]*access-control-allow-origin: \*/,
    );
    assert.match(await raw(`GET /api/mcp/fake/%2e%2e/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer}\r\n`), /^HTTP\/1\.1 400/);
    assert.match(await raw(`GET /api/mcp/fake/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad: a\rb\r\n\r\n`), /^HTTP\/1\.1 400/);
    assert.match(
      await raw(`GET /healthz HTTP/1.1\r\nHost: evil.example.com\r\nOrigin: http://evil.example.com\r\nConnection: close\r\n\r\n`),
      /^HTTP\/1\.1 403/,
    );
    const still = await post(mcp, h.tokens.alice, rpc("ping"));
    assert.equal(still.status, 200);
    await still.text();
  });

  await t.test("healthz, metrics and the access log", async () => {
    const health = await fetch(`${h.base}/healthz`);
    assert.equal((await json(health)).status, "ok");
    const metrics = await (await fetch(`${h.base}/metrics`)).text();
    assert.match(metrics, /hubmcp_gateway_requests_total\{tool="fake",status="200"\} \d+/);
    assert.match(metrics, /hubmcp_gateway_upstream_seconds_bucket\{le="\+Inf"\} \d+/);
    assert.match(metrics, /hubmcp_gateway_tool_sessions \d+/);
    const access = h.logs.map((l) => JSON.parse(l)).filter((l) => l.method);
    assert.ok(access.some((l) => l.path === "/api/mcp/fake/mcp" && l.status === 200 && l.user === "alice" && l.tool === "fake" && typeof l.ms === "number"));
    assert.ok(!h.logs.some((l) => l.includes("?revision")));
  });
});

test("a token revoked or a group left in another process: seen within lookupCacheSeconds (0: the next request)", async (t) => {
  const h = await startHarness(t, { ...CONFIG, limits: { lookupCacheSeconds: 0 } });
  // h.store is the data dir as another process sees it: writes there bypass this gateway's memory.
  const elsewhere = new ApiTokens(h.store, new StoreAccountDirectory(h.store));
  const carol = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.carol, rpc("ping"));
  assert.equal(carol.status, 200);
  await carol.text();
  const account = (await h.store.get<Record<string, unknown>>("accounts", "carol"))!;
  await h.store.put("accounts", "carol", { ...account, groups: [] });
  const left = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.carol, rpc("ping"));
  assert.equal(left.status, 403);
  await left.text();
  const alice = await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(alice.status, 200);
  await alice.text();
  assert.ok(await elsewhere.revoke(/^hubmcp_([a-z0-9]{12})_/.exec(h.tokens.alice)![1]!));
  const revoked = await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(revoked.status, 401);
  await revoked.text();
});

test("lookups are remembered for lookupCacheSeconds: a change elsewhere waits for it", async (t) => {
  const h = await startHarness(t, { ...CONFIG, limits: { lookupCacheSeconds: 60 } });
  const carol = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.carol, rpc("ping"));
  assert.equal(carol.status, 200);
  await carol.text();
  const account = (await h.store.get<Record<string, unknown>>("accounts", "carol"))!;
  await h.store.put("accounts", "carol", { ...account, groups: [] });
  const remembered = await post(`${h.base}/api/mcp/staffonly/mcp`, h.tokens.carol, rpc("ping"));
  assert.equal(remembered.status, 200, "the gateway's copy of the account is still trusted");
  await remembered.text();
});

test("a client that hangs up before the tool server answers: the upstream request is dropped too", { timeout: 20_000 }, async (t) => {
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } } });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const ac = new AbortController();
  const hang = fetch(mcp, {
    method: "POST",
    signal: ac.signal,
    headers: { "content-type": "application/json", authorization: `Bearer ${h.tokens.alice}` },
    body: rpc("hang"),
  }).catch(() => "aborted");
  assert.equal((await json(await post(mcp, h.tokens.alice, rpc("hang-arrived")))).result, "arrived");
  ac.abort();
  assert.equal(await hang, "aborted");
  // Answered only once the hung request's connection to the tool server closed.
  assert.equal((await json(await post(mcp, h.tokens.alice, rpc("hang-closed")))).result, "closed");
});

test("held streams get keepalive comments between events", async (t) => {
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } } }, { keepaliveMs: 50 });
  const mcp = `${h.base}/api/mcp/fake/mcp`;
  const id = await initialize(h);
  const ac = new AbortController();
  t.after(() => ac.abort());
  const res = await fetch(mcp, {
    headers: { authorization: `Bearer ${h.tokens.alice}`, accept: "text/event-stream", "mcp-session-id": id },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes(": keepalive\n\n")) text += new TextDecoder().decode((await reader.read()).value);
  // The keepalive follows a complete event, never splits one.
  assert.match(text, /^: stream open\n\n(event: message\ndata: .*\n\n)+(: keepalive\n\n)+/);
  ac.abort();
});
