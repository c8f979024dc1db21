// Cases the official suite does not reach, each a bug once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyDefaults, compileSchema, SchemaError } from "../../lib/schema/index.ts";

const valid = (schema: Record<string, unknown>, value: unknown): boolean => compileSchema(schema)(value).valid;

test("multipleOf: float noise is forgiven, a half on a large value is not", () => {
  assert.equal(valid({ multipleOf: 0.0001 }, 0.0075), true);
  assert.equal(valid({ multipleOf: 0.01 }, 19.99), true);
  assert.equal(valid({ multipleOf: 1 }, 2000000000.5), false);
  assert.equal(valid({ multipleOf: 1 }, 1e12 + 0.5), false);
  assert.equal(valid({ multipleOf: 3 }, 9e15), true);
});

test("uniqueItems: strings that look like joined arrays are not duplicates, however long the array", () => {
  const filler = Array.from({ length: 16 }, (_, i) => i);
  assert.equal(valid({ uniqueItems: true }, [["a,sb"], ["a", "b"], ...filler]), true);
  assert.equal(valid({ uniqueItems: true }, [["a", "b"], ["a", "b"], ...filler]), false);
});

test("defaults fill own properties only, including names Object.prototype also has", () => {
  // JSON.parse, as a schema from a file would be: a literal `__proto__` key would set the prototype instead.
  const schema = JSON.parse(
    '{"type":"object","properties":{"toString":{"default":"t"},"constructor":{"default":"c"},"__proto__":{"default":{"polluted":true}}}}',
  );
  const filled = applyDefaults(schema, {});
  assert.equal(Object.getOwnPropertyDescriptor(filled, "toString")?.value, "t");
  assert.equal(Object.getOwnPropertyDescriptor(filled, "constructor")?.value, "c");
  assert.deepEqual(Object.getOwnPropertyDescriptor(filled, "__proto__")?.value, { polluted: true });
  assert.equal(Object.getPrototypeOf(filled), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("a $ref with a malformed %-escape is a SchemaError naming the ref", () => {
  assert.throws(
    () => compileSchema({ $ref: "#/%E0" }),
    (err: unknown) => err instanceof SchemaError && /\$ref|#/.test(err.location),
  );
});
