import { test } from "node:test";
import assert from "node:assert/strict";
import { isRecord } from "../../lib/util/guards.ts";

test("isRecord: a JSON object, not null, an array or a primitive", () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord(Object.create(null)), true);
  for (const other of [null, undefined, [], "x", 1, true]) assert.equal(isRecord(other), false);
});
