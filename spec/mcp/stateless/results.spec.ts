import { test } from "node:test";
import assert from "node:assert/strict";
import {
  cacheHintFor,
  checkCacheHint,
  decorateResult,
  discoverResult,
  isCacheable,
  NO_CACHE,
  serverCapabilities,
  type ServerDescription,
} from "../../../lib/mcp/stateless/results.ts";

const serverInfo = { name: "demo", version: "1.0.0" };
const SI = "io.modelcontextprotocol/serverInfo";

test("every result gets resultType and the server's identity; cacheable ones get hints", () => {
  assert.deepEqual(decorateResult("tools/call", { content: [] }, { serverInfo }), { content: [], resultType: "complete", _meta: { [SI]: serverInfo } });
  assert.deepEqual(decorateResult("tools/list", { tools: [] }), { tools: [], resultType: "complete", ttlMs: 0, cacheScope: "private" });
  assert.deepEqual(decorateResult("tools/call", { resultType: "input_required", inputRequests: {} }).resultType, "input_required");
  assert.deepEqual(
    decorateResult("resources/read", { resultType: "input_required" }),
    { resultType: "input_required" },
    "no hints on a round that needs input",
  );
  const kept = decorateResult("prompts/list", { prompts: [], ttlMs: 5, cacheScope: "public", _meta: { mine: 1 } }, { serverInfo });
  assert.deepEqual(kept, { prompts: [], ttlMs: 5, cacheScope: "public", resultType: "complete", _meta: { mine: 1, [SI]: serverInfo } });
});

test("hints come from the resource, then the method, then the server, then no-cache", () => {
  const policy = {
    default: { ttlMs: 1000, cacheScope: "public" as const },
    methods: { "tools/list": { ttlMs: 60_000, cacheScope: "public" as const } },
    resources: { "data://static": { ttlMs: 3_600_000, cacheScope: "public" as const } },
  };
  assert.deepEqual(cacheHintFor(policy, "resources/read", "data://static"), { ttlMs: 3_600_000, cacheScope: "public" });
  assert.deepEqual(cacheHintFor(policy, "resources/read", "data://other"), { ttlMs: 1000, cacheScope: "public" });
  assert.deepEqual(cacheHintFor(policy, "tools/list"), { ttlMs: 60_000, cacheScope: "public" });
  assert.deepEqual(cacheHintFor(undefined, "prompts/list"), NO_CACHE);
  assert.deepEqual(decorateResult("resources/read", { contents: [] }, { cache: policy, uri: "data://static" }).ttlMs, 3_600_000);
  assert.equal(isCacheable("tools/call"), false);
  assert.equal(isCacheable("resources/templates/list"), true);
});

test("bad hints are refused when configured", () => {
  assert.deepEqual(checkCacheHint({ ttlMs: 0, cacheScope: "private" }, "x"), { ttlMs: 0, cacheScope: "private" });
  assert.throws(() => checkCacheHint({ ttlMs: -1, cacheScope: "private" }, "server"), /server: ttlMs/);
  assert.throws(() => checkCacheHint({ ttlMs: 1.5, cacheScope: "private" }, "server"), /ttlMs/);
  assert.throws(() => checkCacheHint({ ttlMs: 1, cacheScope: "shared" as "public" }, "server"), /cacheScope/);
});

const full: ServerDescription = {
  serverInfo,
  instructions: "Use it well.",
  hasTools: true,
  hasPrompts: true,
  hasResources: true,
  hasCompletions: true,
  listChanged: true,
  resourceSubscribe: true,
  logging: true,
  extensions: { "io.modelcontextprotocol/tasks": {} },
};

test("server/discover reports versions, capabilities, instructions and identity", () => {
  assert.deepEqual(discoverResult(full), {
    supportedVersions: ["2026-07-28"],
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
    instructions: "Use it well.",
    resultType: "complete",
    _meta: { [SI]: serverInfo },
    ttlMs: 0,
    cacheScope: "private",
  });
});

test("capabilities name only what the server has", () => {
  const bare = {
    ...full,
    instructions: undefined,
    hasPrompts: false,
    hasResources: true,
    hasCompletions: false,
    listChanged: false,
    resourceSubscribe: false,
    logging: false,
    extensions: {},
  };
  assert.deepEqual(serverCapabilities(bare), { tools: {}, resources: {} });
  const result = discoverResult({ ...bare, supportedVersions: ["2026-07-28", "2027-01-01"] }, { default: { ttlMs: 10, cacheScope: "public" } });
  assert.deepEqual(result.supportedVersions, ["2026-07-28", "2027-01-01"]);
  assert.equal(result.instructions, undefined);
  assert.equal(result.ttlMs, 10);
});
