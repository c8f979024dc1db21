import { test } from "node:test";
import assert from "node:assert/strict";
import { isFlatElicitationSchema } from "../../lib/schema/index.ts";

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });

test("accepts every primitive kind of MCP 2025-11-25 and SEP-1330", () => {
  const schema = obj(
    {
      name: { type: "string", title: "Name", minLength: 1, maxLength: 50, default: "x" },
      email: { type: "string", format: "email" },
      site: { type: "string", format: "uri" },
      day: { type: "string", format: "date" },
      at: { type: "string", format: "date-time" },
      age: { type: "integer", minimum: 0, maximum: 150, default: 3 },
      ratio: { type: "number", minimum: 0.5, description: "why" },
      ok: { type: "boolean", default: false },
      color: { type: "string", enum: ["red", "green"], default: "red" },
      legacy: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] },
      titled: {
        type: "string",
        oneOf: [
          { const: "a", title: "A" },
          { const: "b", title: "B" },
        ],
      },
      titledAny: { type: "string", anyOf: [{ const: "a", title: "A" }] },
      untyped: { oneOf: [{ const: "a", title: "A" }] },
      many: { type: "array", items: { type: "string", enum: ["x", "y"] }, minItems: 1, maxItems: 2, default: ["x"] },
      manyTitled: { type: "array", items: { anyOf: [{ const: "x", title: "X" }] } },
    },
    { required: ["name", "email"], $schema: "https://json-schema.org/draft/2020-12/schema" },
  );
  assert.equal(isFlatElicitationSchema(schema), true);
  assert.equal(isFlatElicitationSchema({ type: "object" }), true);
});

test("rejects nesting, non-object roots and malformed primitives", () => {
  const bad: unknown[] = [
    true,
    { type: "string" },
    obj({ a: { type: "object", properties: {} } }),
    obj({ a: { type: "array", items: { type: "number" } } }),
    obj({ a: { type: "array", items: { type: "string" } } }),
    obj({ a: { type: "array", items: [] } }),
    obj({ a: { type: "array", items: { type: "string", enum: ["x"] }, default: [1] } }),
    obj({ a: { type: "array", items: { type: "string", enum: ["x"] }, minItems: -1 } }),
    obj({ a: { type: "string", format: "uuid" } }),
    obj({ a: { type: "string", minLength: 1.5 } }),
    obj({ a: { type: "string", default: 3 } }),
    obj({ a: { type: "string", pattern: "x" } }),
    obj({ a: { type: "string", enum: [] } }),
    obj({ a: { type: "string", enum: ["a"], default: "b" } }),
    obj({ a: { type: "string", enum: ["a"], enumNames: ["A", "B"] } }),
    obj({ a: { type: "string", oneOf: [{ const: 1, title: "A" }] } }),
    obj({ a: { type: "string", oneOf: [{ const: "a" }] } }),
    obj({ a: { type: "string", oneOf: [{ const: "a", title: "A" }], anyOf: [{ const: "a", title: "A" }] } }),
    obj({ a: { type: "integer", default: 1.5 } }),
    obj({ a: { type: "number", minimum: "0" } }),
    obj({ a: { type: "boolean", default: "yes" } }),
    obj({ a: { type: "null" } }),
    obj({ a: { type: ["string", "null"] } }),
    obj({ a: { $ref: "#/$defs/x" } }),
    obj({ a: {} }),
    obj({ a: "string" }),
    obj({ a: { type: "string" } }, { required: ["b"] }),
    obj({ a: { type: "string" } }, { required: "a" }),
    obj({ a: { type: "string" } }, { additionalProperties: false }),
    { type: "object", properties: [] },
  ];
  for (const schema of bad) assert.equal(isFlatElicitationSchema(schema as never), false, JSON.stringify(schema));
});
