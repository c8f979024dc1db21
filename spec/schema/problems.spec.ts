// Settings checked against a declaration: the key path of what is wrong (items as `[i]`), with
// the declaration's problem line where it gives one, else the schema's own words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { problem, s, section } from "../../lib/schema/index.ts";

test("a node declared without a problem line reports the schema's own words at its key", () => {
  const fail = (key: string, text: string): never => {
    throw new Error(`${key} ${text}`);
  };
  assert.throws(() => section(s.object({ a: s.number() })).check({ a: "x" }, "sec", fail), { message: "sec.a must be number" });
  assert.throws(() => section(s.number()).check("x", "", fail), { message: "(top level) must be number" });
  assert.throws(() => section(s.array(s.number())).check([1, "x"], "list", fail), { message: "list[1] must be number" });
  assert.throws(() => section(s.array(problem(s.number(), "must be a count"))).check([1, "x"], "list", fail), { message: "list[1] must be a count" });
  assert.deepEqual(section(s.object({ a: s.number().default(2) })).check({}, "sec", fail), { a: 2 });
});
