// Merging the initialize results of several tools (hub_bridge): capabilities are unions,
// and a capability a tool names like an Object.prototype member merges as data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mergedInitializeResult } from "../../lib/federation/merge.ts";

test("capabilities are merged key by key; prototype member names are plain keys", () => {
  const a = JSON.parse('{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"__proto__":{"polluted":true},"constructor":{"x":1}}}');
  const b = JSON.parse('{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"constructor":{"y":2},"logging":{}}}');
  const merged = mergedInitializeResult(
    [
      { label: "a", result: a },
      { label: "b", result: b },
    ],
    "1",
  );
  const caps = merged.capabilities as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(caps), Object.prototype, "the prototype stays Object's");
  assert.equal((caps as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(caps, "__proto__")?.value, { polluted: true });
  assert.deepEqual(Object.getOwnPropertyDescriptor(caps, "constructor")?.value, { x: 1, y: 2 });
  assert.deepEqual(caps.tools, { listChanged: true });
  assert.deepEqual(caps.logging, {});
});
