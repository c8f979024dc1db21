// Merging the initialize results of several tools (hub_bridge): capabilities are unions,
// and a capability a tool names like an Object.prototype member merges as data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { initializeResult } from "../../lib/federation/merge.ts";

const RELAY = {
  serverInfo: { name: "relay", version: "1" },
  ...{ hasTools: true, hasPrompts: true, hasResources: true, hasCompletions: false, listChanged: true, resourceSubscribe: false, logging: true },
};

test("capabilities are merged key by key; prototype member names are plain keys", () => {
  const a = JSON.parse('{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"__proto__":{"polluted":true},"constructor":{"x":1}}}');
  const b = JSON.parse('{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"constructor":{"y":2},"logging":{}}}');
  const merged = initializeResult(RELAY, "2025-11-25", [
    { label: "a", result: a },
    { label: "b", result: b },
  ]);
  const caps = merged.capabilities as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(caps), Object.prototype, "the prototype stays Object's");
  assert.equal((caps as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(caps, "__proto__")?.value, { polluted: true });
  assert.deepEqual(Object.getOwnPropertyDescriptor(caps, "constructor")?.value, { x: 1, y: 2 });
  assert.deepEqual(caps.tools, { listChanged: true });
  assert.deepEqual(caps.logging, {});
});

test("with no server started the result is the relay's description alone; its instructions come before the servers'", () => {
  const described = { ...RELAY, instructions: "All tools.", tasks: { list: {} } };
  const alone = initializeResult(described, "2025-11-25");
  assert.deepEqual(alone, {
    protocolVersion: "2025-11-25",
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, logging: {}, tasks: { list: {} } },
    serverInfo: { name: "relay", version: "1" },
    instructions: "All tools.",
  });
  const withOne = initializeResult(described, "2025-11-25", [{ label: "a", result: { instructions: "Adds." } }]);
  assert.equal(withOne.instructions, "All tools.\n\na (names prefixed a_): Adds.");
  assert.equal(initializeResult(RELAY, "2025-11-25", [{ label: "a", result: { instructions: "" } }]).instructions, undefined);
});
