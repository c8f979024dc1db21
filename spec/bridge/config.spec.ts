import { test } from "node:test";
import assert from "node:assert/strict";
import { BridgeConfigError, readBridgeConfig } from "../../lib/bridge/config.ts";

test("defaults: the gateway's default address and the demo tool", () => {
  const config = readBridgeConfig({ HUB_TOKEN: "tok" });
  assert.equal(config.api, "http://127.0.0.1:8080");
  assert.deepEqual(config.tools, [{ tool: "mcpdemo", revision: null, label: "mcpdemo", endpoint: "http://127.0.0.1:8080/api/mcp/mcpdemo/mcp" }]);
});

test("HUB_API keeps its path without trailing slashes; revisions become ?revision=", () => {
  const config = readBridgeConfig({ HUB_TOKEN: " tok ", HUB_API: "https://hub.example.org/gw/", HUB_TOOLS: " a , b@dev ,, a " });
  assert.equal(config.token, "tok");
  assert.deepEqual(
    config.tools.map((t) => [t.label, t.endpoint]),
    [
      ["a", "https://hub.example.org/gw/api/mcp/a/mcp"],
      ["b", "https://hub.example.org/gw/api/mcp/b/mcp?revision=dev"],
    ],
  );
});

test("the same tool at two revisions gets one label per revision", () => {
  const config = readBridgeConfig({ HUB_TOKEN: "tok", HUB_TOOLS: "sim,sim@test" });
  assert.deepEqual(
    config.tools.map((t) => t.label),
    ["sim_default", "sim_test"],
  );
  const twice = readBridgeConfig({ HUB_TOKEN: "tok", HUB_TOOLS: "sim,sim@default" });
  assert.deepEqual(
    twice.tools.map((t) => t.label),
    ["sim_default", "sim_default_2"],
  );
});

test("bad settings are one clear line with a stable code, never echoing the token", () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /^HUB_TOKEN is not set/],
    [{ HUB_TOKEN: "  " }, /^HUB_TOKEN is not set/],
    [{ HUB_TOKEN: "two words" }, /^HUB_TOKEN must be a single token/],
    [{ HUB_TOKEN: "t", HUB_API: "ftp://x" }, /^HUB_API must be an http/],
    [{ HUB_TOKEN: "t", HUB_API: "not a url" }, /^HUB_API must be an http/],
    [{ HUB_TOKEN: "t", HUB_API: "http://u:p@x/" }, /^HUB_API must be a base URL/],
    [{ HUB_TOKEN: "t", HUB_TOOLS: "../etc" }, /^HUB_TOOLS must be comma-separated/],
    [{ HUB_TOKEN: "t", HUB_TOOLS: "a@" }, /^HUB_TOOLS must be comma-separated/],
    [{ HUB_TOKEN: "t", HUB_TOOLS: " , " }, /^HUB_TOOLS names no tool/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => readBridgeConfig(env),
      (err: unknown) =>
        err instanceof BridgeConfigError && err.code === "HUBMCP_BRIDGE_CONFIG" && message.test(err.message) && !err.message.includes("two words"),
      JSON.stringify(env),
    );
  }
});

test("HUB_TOOLS=* is the gateway's one endpoint for every tool", () => {
  const config = readBridgeConfig({ HUB_TOKEN: "t", HUB_API: "https://hub.example.org/", HUB_TOOLS: " * " });
  assert.deepEqual(config.tools, [{ tool: "*", revision: null, label: "hub", endpoint: "https://hub.example.org/mcp" }]);
  assert.throws(() => readBridgeConfig({ HUB_TOKEN: "t", HUB_TOOLS: "*,mcpdemo" }), /HUB_TOOLS must be comma-separated/);
});

test("the token never goes over plain http to another host unless HUB_ALLOW_HTTP=1 says so", () => {
  for (const api of ["http://hub.example.org", "http://10.0.0.5:8080", "http://[2001:db8::1]/"]) {
    assert.throws(
      () => readBridgeConfig({ HUB_TOKEN: "secret-token", HUB_API: api }),
      (err: unknown) => {
        assert.ok(err instanceof BridgeConfigError);
        assert.match(err.message, /^HUB_API is plain http:\/\/ to another host/);
        assert.doesNotMatch(err.message, /secret-token/);
        return true;
      },
    );
    assert.equal(readBridgeConfig({ HUB_TOKEN: "t", HUB_API: api, HUB_ALLOW_HTTP: "1" }).api, api.replace(/\/+$/, ""));
  }
  for (const api of ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "https://hub.example.org"]) {
    assert.equal(readBridgeConfig({ HUB_TOKEN: "t", HUB_API: api }).api, api);
  }
});
