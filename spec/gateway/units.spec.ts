// The gateway's pure parts: config parsing, path routing, session sealing, rewriting,
// the token bucket, and the token and account records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { ConfigError, parseGatewayConfig, parseGatewayConfigText } from "../../lib/gateway/config/gateway-config.ts";
import { DEFAULT_LIMITS } from "../../lib/gateway/config/limits-settings.ts";
import { GatewayMetrics } from "../../lib/gateway/operations/metrics.ts";
import { TokenBucketLimiter } from "../../lib/gateway/edge/rate-limit.ts";
import { inspectRequest, mayActOn, rewriteResult } from "../../lib/gateway/relay/rewrite.ts";
import { checkedPath } from "../../lib/gateway/contracts/routes.ts";
import { gatewayRouter, type GatewayRoutes } from "../../lib/gateway/edge/route-table.ts";
import { SessionSealer } from "../../lib/gateway/relay/session-seal.ts";
import { MemoryRecordStore } from "../../lib/gateway/store/memory-record-store.ts";

test("config: defaults, relative app paths, trailing slashes", () => {
  const config = parseGatewayConfig(
    {
      publicUrl: "https://hub.example.org/",
      tools: {
        demo: { groups: ["g"], revisions: { default: { app: "apps/a.ts" }, dev: { url: "http://127.0.0.1:9001" }, test: { command: ["launch", "--x"] } } },
      },
      allowedHosts: ["tools.example.org", "[2001:db8::1]:8443"],
      limits: {
        ...{ idleMinutes: 1, startSeconds: 2, sessionsPerUser: 3, sessionsTotal: 4, maxBodyBytes: 5, ratePerSecond: 6, rateBurst: 7, lookupCacheSeconds: 0 },
        ...{ headersSeconds: 8, requestSeconds: 9, keepAliveSeconds: 10, maxConnections: 11, upstreamRequestsPerUser: 12, rewriteBudgetBytes: 13 },
        proxyCookieMinutes: 8,
      },
    },
    "/srv",
  );
  assert.equal(config.publicUrl, "https://hub.example.org");
  assert.deepEqual(config.tools.demo!.revisions.default, { kind: "app", app: "/srv/apps/a.ts" });
  assert.deepEqual(config.tools.demo!.revisions.dev, { kind: "url", url: "http://127.0.0.1:9001/" });
  assert.deepEqual(config.tools.demo!.revisions.test, { kind: "command", command: ["launch", "--x"] });
  assert.deepEqual(config.limits, {
    ...{ idleTimeoutMs: 60_000, startTimeoutMs: 2000, sessionsPerUser: 3, sessionsTotal: 4, maxBodyBytes: 5, ratePerSecond: 6, rateBurst: 7, lookupCacheMs: 0 },
    ...{ headersTimeoutMs: 8000, requestTimeoutMs: 9000, keepAliveTimeoutMs: 10_000, maxConnections: 11, upstreamRequestsPerUser: 12, rewriteBudgetBytes: 13 },
    proxyCookieMs: 480_000,
  });
  assert.deepEqual(config.allowedHosts, ["tools.example.org", "[2001:db8::1]:8443"]);
  assert.deepEqual(parseGatewayConfig({ tools: {} }, "/").allowedHosts, []);
  assert.deepEqual(parseGatewayConfig({ tools: {} }, "/").limits, DEFAULT_LIMITS);
  assert.equal(DEFAULT_LIMITS.idleTimeoutMs, 30 * 60_000);
  assert.equal(DEFAULT_LIMITS.lookupCacheMs, 1000);
});

test("config: runAs and env, for the gateway and per tool, reach the revisions that start children", () => {
  const config = parseGatewayConfig(
    {
      runAs: "hubmcp-tools",
      env: ["LANG_EXTRA"],
      tools: {
        a: { revisions: { default: { app: "a.ts" }, up: { url: "http://127.0.0.1:1/" } } },
        b: { runAs: "lab_b", env: ["LICENSE_SERVER"], revisions: { default: { command: ["x"] } } },
      },
    },
    "/srv",
  );
  assert.deepEqual(config.tools.a!.revisions.default, { kind: "app", app: "/srv/a.ts", runAs: "hubmcp-tools", env: ["LANG_EXTRA"] });
  assert.deepEqual(config.tools.a!.revisions.up, { kind: "url", url: "http://127.0.0.1:1/" });
  assert.deepEqual(config.tools.b!.revisions.default, { kind: "command", command: ["x"], runAs: "lab_b", env: ["LICENSE_SERVER"] });
  const isolated = parseGatewayConfig(
    { tools: { a: { revisions: { default: { app: "a.ts" }, p: { app: "a.ts", isolation: "process" }, s: { app: "a.ts", isolation: "shared" } } } } },
    "/srv",
  );
  assert.deepEqual(isolated.tools.a!.revisions.p, { kind: "app", app: "/srv/a.ts" });
  assert.deepEqual(isolated.tools.a!.revisions.s, { kind: "app", app: "/srv/a.ts", isolation: "shared" });
  for (const [value, key] of [
    [{ runAs: "no spaces", tools: {} }, "runAs"],
    [{ env: "PATH", tools: {} }, "env"],
    [{ tools: { t: { runAs: 7, revisions: { default: { app: "a" } } } } }, "tools.t.runAs"],
    [{ tools: { t: { env: ["A=B"], revisions: { default: { app: "a" } } } } }, "tools.t.env"],
  ] as const) {
    assert.throws(
      () => parseGatewayConfig(value, "/"),
      (err: unknown) => err instanceof ConfigError && err.key === key,
      key,
    );
  }
});

test("config: every problem names its key", () => {
  const bad: Array<[unknown, string]> = [
    [{ tools: { "bad name": { revisions: { default: { app: "a" } } } } }, "tools"],
    [{ tools: { t: { revisions: { "a/b": { app: "a" } } } } }, "tools.t.revisions"],
    [{ tools: { t: { revisions: { default: { app: "" } } } } }, "tools.t.revisions.default.app"],
    [{ tools: { t: { revisions: { default: { url: "https://x/" } } } } }, "tools.t.revisions.default.url"],
    [{ tools: { t: { revisions: { default: { url: "http://u:p@x/" } } } } }, "tools.t.revisions.default.url"],
    [{ tools: { t: { revisions: { default: 3 } } } }, "tools.t.revisions.default"],
    [{ tools: { t: { revisions: { default: { app: "a", x: 1 } } } } }, "tools.t.revisions.default.x"],
    [{ tools: { t: { revisions: { default: { app: "a", isolation: "thread" } } } } }, "tools.t.revisions.default.isolation"],
    [{ tools: { t: { runAs: "@person", revisions: { default: { app: "a", isolation: "shared" } } } } }, "tools.t.revisions.default.isolation"],
    [{ tools: { t: { revisions: { default: { url: "http://x/", isolation: "shared" } } } } }, "tools.t.revisions.default.isolation"],
    [{ tools: { t: { revisions: [] } } }, "tools.t.revisions"],
    [{ tools: { t: { color: "red", revisions: {} } } }, "tools.t.color"],
    [{ tools: { t: 1 } }, "tools.t"],
    [{ tools: [] }, "tools"],
    [{ tools: {}, limits: [] }, "limits"],
    [{ tools: {}, limits: { speed: 1 } }, "limits.speed"],
    [{ tools: {}, limits: { lookupCacheSeconds: -1 } }, "limits.lookupCacheSeconds"],
    [{ tools: {}, limits: { lookupCacheSeconds: 61 } }, "limits.lookupCacheSeconds"],
    [{ tools: {}, publicUrl: 5 }, "publicUrl"],
    [{ tools: {}, limits: { upstreamRequestsPerUser: 129 } }, "limits.upstreamRequestsPerUser"],
    [{ tools: {}, limits: { maxConnections: 0 } }, "limits.maxConnections"],
    [{ tools: {}, allowedHosts: "hub.example.org" }, "allowedHosts"],
    [{ tools: {}, allowedHosts: ["https://hub.example.org/"] }, "allowedHosts"],
  ];
  for (const [value, key] of bad) {
    assert.throws(
      () => parseGatewayConfig(value, "/"),
      (err: unknown) => err instanceof ConfigError && err.key === key,
      key,
    );
  }
  assert.throws(() => parseGatewayConfigText("nope", "/"), ConfigError);
});

test("routes: each section-C path, and hostile paths refused", () => {
  // The table's matcher alone: building the router calls none of the handlers.
  const { match } = gatewayRouter({ config: { tools: {} } } as unknown as GatewayRoutes, () => {});
  const route = (target: string): unknown => {
    const m = match(target);
    return m === null ? "bad-path" : m === undefined ? "not-found" : { path: m.route.path, ...m.params };
  };
  // GET and POST of /api/mcp/{tool} are the bootstrap and the tool root: one route, two methods.
  assert.deepEqual(route("/api/mcp/demo"), { path: "/api/mcp/:tool", tool: "demo" });
  assert.deepEqual(route("/api/mcp/demo/"), { path: "/api/mcp/:tool", tool: "demo" });
  assert.deepEqual(route("/api/mcp/demo/mcp?revision=dev"), { path: "/api/mcp/:tool/mcp", tool: "demo" });
  assert.deepEqual(route("/api/mcp/demo/g1.abc"), { path: "/api/mcp/:tool/:session", tool: "demo", session: "g1.abc" });
  assert.deepEqual(route("/api/mcp/demo/sse"), { path: "/api/mcp/:tool/sse", tool: "demo" });
  assert.deepEqual(route("/api/mcp/demo/openapi.json"), { path: "/api/mcp/:tool/openapi.json", tool: "demo" });
  assert.deepEqual(route("/api/mcp/demo/tools/add"), { path: "/api/mcp/:tool/tools/:name", tool: "demo", name: "add" });
  for (const endpoint of ["mcp", "sse"]) {
    assert.deepEqual(route(`/api/mcp/demo/${endpoint}/.well-known/oauth-protected-resource`), {
      path: `/api/mcp/:tool/${endpoint}/.well-known/oauth-protected-resource`,
      tool: "demo",
    });
    assert.deepEqual(route(`/.well-known/oauth-protected-resource/api/mcp/demo/${endpoint}`), {
      path: `/.well-known/oauth-protected-resource/api/mcp/:tool/${endpoint}`,
      tool: "demo",
    });
  }
  assert.equal(route("/.well-known/oauth-protected-resource/api/mcp/demo/openapi.json"), "not-found");
  assert.deepEqual(route("/weber/s/c/7/sse"), { path: "/weber/:instance/:cookie/*", instance: "s", cookie: "c", "*": "7/sse" });
  assert.deepEqual(route("/healthz"), { path: "/healthz" });
  assert.deepEqual(route("/account"), { path: "/account" });
  assert.equal(route("/account/x"), "not-found");
  // The registry API reads the rest of its path itself; hostile paths are refused before it sees them.
  assert.deepEqual(route("/admin/api/tools/demo/revisions/v2"), { path: "/admin/api/*", "*": "tools/demo/revisions/v2" });
  assert.equal(route("/admin/sessions/stop"), "not-found");
  assert.equal(route("/admin/api/../mcp"), "bad-path");
  assert.deepEqual(route("/metrics"), { path: "/metrics" });
  assert.equal(route("/api/other"), "not-found");
  assert.equal(route("/api/mcp/demo/tools/a/b"), "not-found");
  for (const path of ["/api/mcp/../x", "/api/mcp/%2e%2e/x", "/api/mcp/a%2Fb", "/a\\b", "//x", "/a/./b", "x", "/a%00", "/a b", "/" + "a".repeat(9000)]) {
    assert.equal(checkedPath(path), null, path);
    assert.equal(route(path), "bad-path");
  }
  assert.equal(checkedPath(undefined), "/");
});

test("sealed session ids: round trip, tamper-proof, key-bound", () => {
  const key = randomBytes(32);
  const sealer = new SessionSealer(key);
  const binding = { user: "ada", tool: "demo", revision: "default", instance: "i".repeat(32), upstream: "up" };
  const id = sealer.seal(binding);
  assert.deepEqual(sealer.open(id), binding);
  assert.deepEqual(sealer.open(id), binding, "opened again (from memory)");
  assert.ok(Object.isFrozen(sealer.open(id)));
  assert.notEqual(sealer.seal(binding), id);
  assert.equal(new SessionSealer(randomBytes(32)).open(id), null);
  const flipped = id.slice(0, 10) + (id[10] === "A" ? "B" : "A") + id.slice(11);
  assert.equal(sealer.open(flipped), null);
  for (const junk of ["", "g1.", "g1.AAAA", "g2.x", "x".repeat(5000), `g1.${Buffer.from("x".repeat(40)).toString("base64url")}`])
    assert.equal(sealer.open(junk), null);
  // The decoder would skip these; an alias of a real id is not that id.
  for (const alias of [`${id}=`, `${id} `, `${id}!!!!`, `${id}${".".repeat(300)}`]) assert.equal(sealer.open(alias), null, JSON.stringify(alias.slice(-4)));
  assert.throws(() => new SessionSealer(Buffer.alloc(8)));
});

test("rewriting: only ping answers, the gateway's old URI prefix stripped on the way in, bytes kept otherwise", () => {
  const prefix = "http://gw/api/mcp/demo/";
  const read = inspectRequest(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: `${prefix}ui://a` } })), prefix)!;
  assert.equal(JSON.parse(read.body.toString()).params.uri, "ui://a");
  // The answer goes out as the tool wrote it: the URI a tool's `_meta` names (issue 34.3).
  assert.equal(read.rewrite, false);
  const raw = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":[]}}');
  const list = inspectRequest(raw, prefix)!;
  assert.equal(list.body, raw);
  assert.equal(list.rewrite, false);
  assert.equal(inspectRequest(Buffer.from("[1]"), prefix)!.method, undefined);
  assert.equal(inspectRequest(Buffer.from('{"jsonrpc":"2.0","method":"ping"}'), prefix)!.rewrite, false);
  assert.ok(inspectRequest(Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize"}'), prefix)!.initialize);
  // Spelt in escapes, a method the gateway acts on is still found.
  assert.ok(inspectRequest(Buffer.from('{"jsonrpc":"2.0","id":0,"method":"\\u0069nitialize"}'), prefix)!.initialize);
  assert.ok(inspectRequest(Buffer.from('{"jsonrpc":"2.0","id":0,"\\u006dethod":"ping"}'), prefix)!.rewrite);
  // Its name as an argument is not its method.
  const named = inspectRequest(Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"initialize"}}'), prefix)!;
  assert.equal(named.initialize, false);
  assert.equal(named.method, "tools/call");
  assert.equal(inspectRequest(Buffer.from("{"), prefix), null);
  // Only a body that could be a message the gateway acts on need be read; escapes could spell one.
  for (const acted of ['{"method":"initialize"}', '{"method":"ping"}', '{"method":"resources/read"}', '{"\\u006dethod":"x"}', "{"]) {
    assert.equal(mayActOn(Buffer.from(acted), "application/json"), acted !== "{", acted);
  }
  const call = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}';
  assert.equal(mayActOn(Buffer.from(call), "application/json"), false);
  assert.equal(mayActOn(Buffer.from(call), undefined), false);
  assert.equal(mayActOn(Buffer.from(call), 'application/json; Charset="UTF-8"'), false);
  assert.equal(mayActOn(Buffer.from(call), "application/json;charset=utf8"), false);
  // Bodies another charset spells are read whole (a server may decode them by it), as is UTF-16 named by no charset.
  assert.equal(mayActOn(Buffer.from(call), "application/json; charset=utf-7"), true);
  assert.equal(mayActOn(Buffer.from('{"method":"initialize"}', "utf16le"), "application/json; charset=utf-16le"), true);
  assert.equal(mayActOn(Buffer.from('{"method":"initialize"}', "utf16le"), "application/json"), true);
  // Text around the method name may be any UTF-8; only the whole quoted name counts.
  assert.equal(mayActOn(Buffer.from('{"params":{"text":"é 日本 🧪"},"method":"resources/list"}'), "application/json"), true);
  assert.equal(mayActOn(Buffer.from('{"params":{"text":"é 日本 🧪 pingé"},"method":"pinger","x":"initializer"}'), "application/json"), false);

  assert.equal(rewriteResult("ping", Buffer.from('{"jsonrpc":"2.0","id":1,"result":[]}')), '{"jsonrpc":"2.0","id":1,"result":{}}');
  assert.equal(rewriteResult("ping", Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}')), null);
  assert.equal(rewriteResult("ping", Buffer.from('{"jsonrpc":"2.0","id":1,"error":{}}')), null);
  assert.equal(rewriteResult("ping", Buffer.from("nope")), null);
  assert.equal(rewriteResult("resources/list", Buffer.from('{"result":{"resources":[{"uri":"ui://a"}]}}')), null);
});

test("token bucket: burst, then a wait proportional to the rate", () => {
  const limiter = new TokenBucketLimiter(2, 3);
  const t0 = 1_000_000;
  for (let i = 0; i < 3; i++) assert.equal(limiter.take("u", t0), 0);
  assert.equal(limiter.take("u", t0), 1);
  assert.equal(limiter.take("other", t0), 0);
  assert.equal(limiter.take("u", t0 + 500), 0);
});

test("metrics render in the Prometheus text format", () => {
  const metrics = new GatewayMetrics();
  metrics.request('to"ol', 200);
  metrics.request('to"ol', 200);
  metrics.request('to"ol', 404);
  metrics.upstreamLatency(3);
  metrics.upstreamLatency(30);
  metrics.upstreamLatency(60_000);
  const text = metrics.render(2);
  assert.match(text, /hubmcp_gateway_requests_total\{tool="to\\"ol",status="200"\} 2/);
  assert.match(text, /hubmcp_gateway_requests_total\{tool="to\\"ol",status="404"\} 1/);
  // Buckets are cumulative: each counts every latency at or under its bound.
  assert.match(text, /hubmcp_gateway_upstream_seconds_bucket\{le="0.005"\} 1\n/);
  assert.match(text, /hubmcp_gateway_upstream_seconds_bucket\{le="0.025"\} 1\n/);
  assert.match(text, /hubmcp_gateway_upstream_seconds_bucket\{le="0.05"\} 2\n/);
  assert.match(text, /hubmcp_gateway_upstream_seconds_bucket\{le="30"\} 2\n/);
  assert.match(text, /hubmcp_gateway_upstream_seconds_bucket\{le="\+Inf"\} 3\n/);
  assert.match(text, /hubmcp_gateway_upstream_seconds_count 3\n/);
  assert.match(text, /hubmcp_gateway_tool_sessions 2/);
});

test("API tokens and accounts: hashes only, constant-time checks, groups as they are now", async () => {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("ada", "pw", ["x"]);
  await assert.rejects(accounts.add("ada", "pw"), /already exists/);
  await assert.rejects(accounts.add("a/b", "pw"), /user names/);
  await assert.rejects(accounts.add("bob", "pw", ["bad group"]), /group names/);
  assert.equal(await accounts.verifyPassword("nobody", "pw"), null);
  assert.equal(await accounts.verifyPassword("../x", "pw"), null);
  assert.equal(await accounts.groupsOf("nobody"), null);
  assert.equal(await accounts.groupsOf("../x"), null);
  const tokens = new ApiTokens(store, accounts);
  const made = (await tokens.create("ada"))!;
  const record = JSON.stringify(await store.get("api-tokens", made.id));
  assert.ok(!record.includes(made.token.slice(20)));
  assert.deepEqual(await tokens.verify(made.token), { user: "ada", groups: ["x"], kind: "api-token" });
  assert.equal(await tokens.verify(made.token.slice(0, -1) + (made.token.endsWith("A") ? "B" : "A")), null);
  assert.equal(await tokens.verify("Bearer nonsense"), null);
  assert.equal(await tokens.verify(`hubmcp_zzzzzzzzzzzz_${"a".repeat(43)}`), null);
  assert.equal(await tokens.revoke("NOT-AN-ID"), false);
  await store.delete("accounts", "ada");
  assert.equal(await tokens.verify(made.token), null);
});
