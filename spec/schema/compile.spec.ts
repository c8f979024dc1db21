import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSchema, SchemaError, type JsonSchema, type ValidationError } from "../../lib/schema/index.ts";

function errorsOf(schema: JsonSchema, value: unknown, assertFormats = false): ValidationError[] {
  const result = compileSchema(schema, { assertFormats })(value);
  return result.valid ? [] : result.errors;
}

function schemaErrorAt(schema: unknown): string {
  try {
    compileSchema(schema as JsonSchema);
  } catch (err) {
    assert.ok(err instanceof SchemaError);
    return err.location;
  }
  assert.fail("schema was accepted");
}

test("errors are data with JSON Pointer paths, and never echo the value", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 4, pattern: "^[a-z]+$" },
      n: { type: "integer", minimum: 0, maximum: 10, exclusiveMinimum: -1, exclusiveMaximum: 9, multipleOf: 2 },
      "a/b~c": { type: "number" },
      points: { type: "array", items: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    },
    required: ["name", "n", "missing"],
    additionalProperties: false,
  };
  const errors = errorsOf(schema, {
    name: "SECRETVALUE",
    n: 11,
    "a/b~c": "x",
    points: [{ x: 1 }, { y: "SECRETVALUE" }],
    extra: "SECRETVALUE",
  });
  assert.deepEqual(errors, [
    { path: "/name", message: "must be at most 4 characters long" },
    { path: "/name", message: "must match pattern ^[a-z]+$" },
    { path: "/n", message: "must be <= 10" },
    { path: "/n", message: "must be < 9" },
    { path: "/n", message: "must be a multiple of 2" },
    { path: "/a~1b~0c", message: "must be number" },
    { path: "/points/1/x", message: "is required" },
    { path: "/missing", message: "is required" },
    { path: "/extra", message: "is not allowed" },
  ]);
  assert.ok(!JSON.stringify(errors).includes("SECRETVALUE"));
  assert.deepEqual(errorsOf({ minimum: 0, exclusiveMinimum: 0, minLength: 3 }, -1), [
    { path: "", message: "must be >= 0" },
    { path: "", message: "must be > 0" },
  ]);
  assert.deepEqual(errorsOf({ type: ["string", "null"] }, 1), [{ path: "", message: "must be string or null" }]);
  assert.deepEqual(errorsOf({ enum: ["a", "b"] }, "c"), [{ path: "", message: 'must be one of "a", "b"' }]);
  assert.deepEqual(errorsOf({ enum: [{ a: 1 }] }, { a: 2 }), [{ path: "", message: 'must be one of {"a":1}' }]);
  assert.equal(errorsOf({ enum: Array.from({ length: 11 }, (_, i) => i) }, 20)[0]!.message, "must be one of the allowed values");
  assert.deepEqual(errorsOf({ const: 3 }, 4), [{ path: "", message: "must be 3" }]);
  assert.deepEqual(errorsOf(false, 1), [{ path: "", message: "is not allowed" }]);
});

test("object, array and combinator messages", () => {
  const obj = {
    minProperties: 2,
    propertyNames: { maxLength: 3 },
    dependentRequired: { a: ["b"] },
    dependentSchemas: { a: { required: ["c"] } },
    patternProperties: { "^x": { type: "string" } },
  };
  assert.deepEqual(errorsOf(obj, { a: 1, xlong: 2 }), [
    { path: "/xlong", message: "must be string" },
    { path: "/xlong", message: "property name must be at most 3 characters long" },
    { path: "/b", message: 'is required when "a" is present' },
    { path: "/c", message: "is required" },
  ]);
  assert.deepEqual(errorsOf({ minProperties: 2 }, {}), [{ path: "", message: "must have at least 2 properties" }]);
  assert.deepEqual(errorsOf({ maxProperties: 0 }, { a: 1 }), [{ path: "", message: "must have at most 0 properties" }]);
  assert.deepEqual(errorsOf({ minItems: 2, maxItems: 0, uniqueItems: true }, [1, 1]), [
    { path: "", message: "must have at most 0 items" },
    { path: "", message: "must not contain duplicate items (0 and 1 are equal)" },
  ]);
  assert.deepEqual(errorsOf({ minItems: 2 }, [1]), [{ path: "", message: "must have at least 2 items" }]);
  const many = Array.from({ length: 40 }, (_, i) => ({ i: i % 39, tags: [i % 39] }));
  assert.deepEqual(errorsOf({ uniqueItems: true }, many), [{ path: "", message: "must not contain duplicate items (0 and 39 are equal)" }]);
  assert.deepEqual(
    errorsOf(
      { uniqueItems: true },
      Array.from({ length: 20 }, (_, i) => ({ i })),
    ),
    [],
  );
  assert.deepEqual(errorsOf({ contains: { type: "string" } }, [1]), [{ path: "", message: "must contain a matching item" }]);
  assert.deepEqual(errorsOf({ contains: { type: "string" }, minContains: 2 }, ["a"]), [{ path: "", message: "must contain at least 2 matching items" }]);
  assert.deepEqual(errorsOf({ contains: { type: "string" }, maxContains: 1 }, ["a", "b"]), [{ path: "", message: "must contain at most 1 matching items" }]);
  assert.deepEqual(errorsOf({ prefixItems: [{ type: "string" }], items: false }, ["a", 2]), [{ path: "/1", message: "is not allowed" }]);
  assert.deepEqual(errorsOf({ anyOf: [{ type: "string" }, { type: "null" }] }, 1), [{ path: "", message: "must match at least one schema in anyOf" }]);
  assert.deepEqual(errorsOf({ oneOf: [{ type: "string" }, { type: "null" }] }, 1), [
    { path: "", message: "must match exactly one schema in oneOf (it matches none)" },
  ]);
  assert.deepEqual(errorsOf({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1), [
    { path: "", message: "must match exactly one schema in oneOf (it matches several)" },
  ]);
  assert.deepEqual(errorsOf({ not: { type: "number" } }, 1), [{ path: "", message: "must not match the schema in not" }]);
  assert.deepEqual(errorsOf({ allOf: [{ minimum: 2 }, { maximum: 0 }] }, 1), [
    { path: "", message: "must be >= 2" },
    { path: "", message: "must be <= 0" },
  ]);
  const cond = { if: { minimum: 10 }, then: { multipleOf: 10 }, else: { maximum: 5 } };
  assert.deepEqual(errorsOf(cond, 11), [{ path: "", message: "must be a multiple of 10" }]);
  assert.deepEqual(errorsOf(cond, 6), [{ path: "", message: "must be <= 5" }]);
  assert.deepEqual(errorsOf({ if: { minimum: 10 } }, 1), []);
});

test("strings count code points and patterns are Unicode-aware", () => {
  assert.deepEqual(errorsOf({ maxLength: 2 }, "😀😀"), []);
  assert.deepEqual(errorsOf({ minLength: 3 }, "😀😀"), [{ path: "", message: "must be at least 3 characters long" }]);
  assert.deepEqual(errorsOf({ minLength: 2 }, "\ud800x"), []);
  assert.deepEqual(errorsOf({ pattern: "^\\p{Letter}+$" }, "héllo"), []);
  assert.deepEqual(errorsOf({ pattern: "^.$" }, "😀"), []);
  assert.deepEqual(errorsOf({ pattern: "^a\\-b$" }, "a-b"), []);
  assert.deepEqual(errorsOf({ multipleOf: 0.01 }, 0.29), []);
  assert.deepEqual(errorsOf({ multipleOf: 0.123456789 }, 1e308), [{ path: "", message: "must be a multiple of 0.123456789" }]);
  assert.deepEqual(errorsOf({ type: "number" }, Number.NaN), [{ path: "", message: "must be number" }]);
});

test("recursive local references, anchors and $id bases", () => {
  const tree: JsonSchema = {
    $defs: { node: { $anchor: "node", type: "object", properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#node" } } } } },
    $ref: "#/$defs/node",
  };
  assert.deepEqual(errorsOf(tree, { value: 1, children: [{ value: 2, children: [{ value: "x" }] }] }), [
    { path: "/children/0/children/0/value", message: "must be number" },
  ]);
  const ided: JsonSchema = { $id: "https://example.com/root.json", $defs: { a: { $id: "a.json", type: "string" } }, properties: { x: { $ref: "a.json" } } };
  assert.deepEqual(errorsOf(ided, { x: 1 }), [{ path: "/x", message: "must be string" }]);
  const urn: JsonSchema = { $id: "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", $defs: { s: { type: "string" } }, $ref: "#/$defs/s" };
  assert.deepEqual(errorsOf(urn, 1), [{ path: "", message: "must be string" }]);
  assert.deepEqual(errorsOf({ $defs: { f: false }, $ref: "#/$defs/f" }, 1), [{ path: "", message: "is not allowed" }]);
  assert.deepEqual(errorsOf({ $defs: { t: true }, $ref: "#/$defs/t" }, 1), []);
  assert.deepEqual(errorsOf({ prefixItems: [{ type: "string" }], properties: { a: { $ref: "#/prefixItems/0" } } }, { a: 1 }), [
    { path: "/a", message: "must be string" },
  ]);
});

test("a malformed schema is refused with its location", () => {
  const cases: Array<[unknown, string]> = [
    [{ properties: { a: { type: "text" } } }, "#/properties/a/type"],
    [{ type: [] }, "#/type"],
    [{ type: ["string", "string"] }, "#/type"],
    [{ minLength: -1 }, "#/minLength"],
    [{ maximum: "3" }, "#/maximum"],
    [{ multipleOf: 0 }, "#/multipleOf"],
    [{ pattern: "(" }, "#/pattern"],
    [{ pattern: 3 }, "#/pattern"],
    [{ patternProperties: { "a/(": {} } }, "#/patternProperties/a~1("],
    [{ properties: [] }, "#/properties"],
    [{ properties: { a: 3 } }, "#/properties/a"],
    [{ required: ["a", "a"] }, "#/required"],
    [{ dependentRequired: [] }, "#/dependentRequired"],
    [{ dependentRequired: { a: [1] } }, "#/dependentRequired/a"],
    [{ allOf: [] }, "#/allOf"],
    [{ enum: "a" }, "#/enum"],
    [{ items: [{}] }, "#/items"],
    [{ uniqueItems: "yes" }, "#/uniqueItems"],
    [{ format: 1 }, "#/format"],
    [{ $ref: 1 }, "#/$ref"],
    [{ $ref: "#/$defs/missing" }, "#/$ref"],
    [{ $ref: "#missing" }, "#/$ref"],
    [{ $ref: "#/$defs/a", $defs: { a: 3 } }, "#/$ref"],
    [{ $ref: "https://example.com/other.json" }, "#/$ref"],
    [{ $id: 3 }, "#/$id"],
    [{ $id: "https://x.test/a#frag" }, "#/$id"],
    [{ $defs: { a: { $anchor: "1bad" } } }, "#/$defs/a/$anchor"],
    [{ properties: { a: { unevaluatedProperties: false } } }, "#/properties/a/unevaluatedProperties"],
    [{ $dynamicRef: "#x" }, "#/$dynamicRef"],
    [{ $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" }, "#/$defs/b/allOf/0/$ref"],
    ["string", "#"],
  ];
  for (const [schema, location] of cases) assert.equal(schemaErrorAt(schema), location, JSON.stringify(schema));
  assert.throws(() => compileSchema({ minimum: "0" }), { name: "SchemaError", message: "Invalid schema at #/minimum: must be a number" });
});

test("format is an annotation unless asserted", () => {
  const ok: Record<string, string[]> = {
    "date-time": ["2024-02-29T23:59:60Z", "2024-01-01t10:00:00.5+02:00", "1998-12-31T15:59:60.123-08:00"],
    date: ["2024-02-29", "2023-04-30"],
    time: ["10:20:30Z", "23:59:60+00:00"],
    email: ["a.b+c@example.com", "x@[127.0.0.1]"],
    uri: ["https://example.com/a?b#c", "urn:isbn:0451450523"],
    uuid: ["2EB8AA08-AA98-11EA-B4AA-73B441D16380"],
    ipv4: ["192.168.0.1"],
    ipv6: ["::1", "2001:db8::8a2e:370:7334"],
  };
  const bad: Record<string, string[]> = {
    "date-time": ["2023-02-29T10:00:00Z", "2024-01-01 10:00:00Z", "2024-01-01T10:00:60Z", "2024-01-01T24:00:00Z"],
    date: ["2023-02-29", "2023-04-31", "2023-13-01", "23-01-01"],
    time: ["10:20:30", "25:00:00Z", "10:00:00+24:00"],
    email: ["plain", "@x.com", "a..b@x.com", "a@-x.com"],
    uri: ["relative/path", "http://exa mple.com"],
    uuid: ["2eb8aa08aa9811eab4aa73b441d16380"],
    ipv4: ["256.1.1.1", "01.2.3.4", "1.2.3"],
    ipv6: ["12345::", "fe80::1%eth0"],
  };
  for (const [format, values] of Object.entries(ok)) {
    for (const v of values) assert.deepEqual(errorsOf({ format }, v, true), [], `${format} ${v}`);
  }
  for (const [format, values] of Object.entries(bad)) {
    for (const v of values) {
      assert.deepEqual(errorsOf({ format }, v, true), [{ path: "", message: `must be a valid ${format}` }], `${format} ${v}`);
      assert.deepEqual(errorsOf({ format }, v), []);
    }
  }
  assert.deepEqual(errorsOf({ format: "made-up" }, "x", true), []);
  assert.deepEqual(errorsOf({ format: "email" }, 3, true), []);
});
