import { test } from "node:test";
import assert from "node:assert/strict";
import { applyDefaults } from "../../lib/schema/index.ts";

test("fills top-level and nested defaults without mutating the arguments", () => {
  const schema = {
    type: "object",
    properties: {
      g: { type: "number", default: 9.81 },
      tags: { type: "array", default: [] },
      opts: { type: "object", properties: { depth: { default: 2 }, mode: { default: "fast" } } },
      made: { type: "object", default: {}, properties: { level: { default: 1 } } },
      plain: { type: "string" },
      odd: true,
    },
  };
  const args = { opts: { mode: "slow" } };
  const filled = applyDefaults(schema, args);
  assert.deepEqual(filled, { g: 9.81, tags: [], opts: { mode: "slow", depth: 2 }, made: { level: 1 } });
  assert.deepEqual(args, { opts: { mode: "slow" } });
  const again = applyDefaults(schema, args);
  assert.notEqual(again.tags, filled.tags);
  const complete = { g: 1, tags: [1], opts: { depth: 1, mode: "x" }, made: { level: 3 } };
  assert.equal(applyDefaults(schema, complete), complete);
  assert.equal(applyDefaults(true, complete), complete);
  assert.equal(applyDefaults({ type: "object" }, complete), complete);
});
