// Runs the official JSON-Schema-Test-Suite (draft2020-12) against compileSchema. The
// suite is vendored under fixtures/json-schema-test-suite; skips come from ./suite-skips.ts only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { compileSchema, type JsonSchema } from "../../lib/schema/index.ts";
import { SKIPS } from "./suite-skips.ts";

interface Case {
  description: string;
  data: unknown;
  valid: boolean;
}
interface Group {
  description: string;
  schema: JsonSchema;
  tests: Case[];
}

const dir = new URL("../../fixtures/json-schema-test-suite/draft2020-12/", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();
const skips: Record<string, string> = SKIPS;
const used = new Set<string>();
const totals = { passed: 0, skipped: 0 };

for (const file of files) {
  test(`JSON-Schema-Test-Suite ${file}`, () => {
    const groups = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Group[];
    const failures: string[] = [];
    for (const group of groups) {
      const key = skips[file] !== undefined ? file : `${file} > ${group.description}`;
      if (skips[key] !== undefined) {
        used.add(key);
        totals.skipped += group.tests.length;
        continue;
      }
      let validate;
      try {
        validate = compileSchema(group.schema);
      } catch (err) {
        failures.push(`${group.description}: compile failed: ${(err as Error).message}`);
        continue;
      }
      for (const c of group.tests) {
        const result = validate(c.data);
        if (result.valid === c.valid) totals.passed++;
        else failures.push(`${group.description} / ${c.description}: expected ${c.valid ? "valid" : "invalid"}`);
        // "is invalid" at the root is the fallback when the error pass disagrees with the fast
        // pass; a real failure always names its keyword.
        if (!result.valid) {
          const fallbackOnly = result.errors.length === 1 && result.errors[0]!.message === "is invalid" && result.errors[0]!.path === "";
          assert.ok(!fallbackOnly, `${group.description} / ${c.description}: the error pass found nothing`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
}

test("every skip-list entry still names something in the suite, and the counts hold", (t) => {
  assert.deepEqual(
    Object.keys(skips).filter((k) => !used.has(k)),
    [],
  );
  t.diagnostic(`JSON-Schema-Test-Suite draft2020-12: ${totals.passed} passed, ${totals.skipped} skipped`);
  assert.ok(totals.passed >= 1012, `only ${totals.passed} cases passed`);
});
