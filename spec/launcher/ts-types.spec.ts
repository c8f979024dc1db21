// TypeScript parameter types to JSON Schema, read from syntax alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";
import { typedFunctions } from "../../lib/launcher/ts-types.ts";

function typesOf(source: string) {
  const file = ts.createSourceFile("app.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  return typedFunctions(ts, file).map((f) => ({ types: f.types, unexpressible: f.unexpressible }));
}

test("keywords, arrays, literal unions, optional parameters and JSDoc @param", () => {
  const [divide, pick] = typesOf(`
/**
 * Divide a by b.
 * @param a - the dividend
 * @param {number} b the divisor
 */
function divide(a: number, b: number) { return a / b; }
const pick = (names: string[], mode: "fast" | "slow", level: 1 | 2 | 3, flag?: boolean, on: true | false = true, any: unknown = 1, many: Array<readonly number[]> = []) => 0;
`);
  assert.deepEqual(divide, {
    types: {
      properties: { a: { type: "number" }, b: { type: "number" } },
      optional: [],
      description: "Divide a by b.",
      params: { a: "the dividend", b: "the divisor" },
    },
    unexpressible: [],
  });
  assert.deepEqual(pick!.types.properties, {
    names: { type: "array", items: { type: "string" } },
    mode: { type: "string", enum: ["fast", "slow"] },
    level: { type: "number", enum: [1, 2, 3] },
    flag: { type: "boolean" },
    on: { type: "boolean" },
    any: {},
    many: { type: "array", items: { type: "array", items: { type: "number" } } },
  });
  assert.deepEqual(pick!.types.optional, ["flag"]);
});

test("inline object types and same-file interfaces nest; undefined means optional; null is allowed explicitly", () => {
  const [fn] = typesOf(`
interface Point {
  /** Metres east. */
  x: number;
  y?: number;
}
type Mode = "a" | "b";
function f(p: Point, box: { min: Point; max: Point; label: string | undefined }, mode: Mode, note: string | null, tag: "x" | null, k: -1 | 2.5 | "z", maybe: number | undefined, map: Record<string, boolean>) {}
`);
  const point = { type: "object", properties: { x: { type: "number", description: "Metres east." }, y: { type: "number" } }, required: ["x"] };
  assert.deepEqual(fn!.types.properties, {
    p: point,
    box: { type: "object", properties: { min: point, max: point, label: { type: "string" } }, required: ["min", "max"] },
    mode: { type: "string", enum: ["a", "b"] },
    note: { type: ["string", "null"] },
    tag: { type: ["string", "null"], enum: ["x", null] },
    k: { enum: [-1, 2.5, "z"] },
    maybe: { type: "number" },
    map: { type: "object", additionalProperties: { type: "boolean" } },
  });
  assert.deepEqual(fn!.types.optional, ["maybe"]);
  assert.deepEqual(fn!.unexpressible, []);
});

test("a destructured first parameter takes its keys from its type; ToolContext marks the context", () => {
  const [arrow, positional] = typesOf(`
server.tool(({ x, y = 3 }: { x: number; y?: number }, ctx: ToolContext) => x * y);
function g(this: Window, a: string, c: ToolContext) {}
`);
  assert.deepEqual(arrow!.types, { properties: { x: { type: "number" }, y: { type: "number" } }, optional: ["y"], context: 1 });
  assert.deepEqual(positional!.types, { properties: { a: { type: "string" } }, optional: [], context: 1 });
});

test("types with no JSON Schema equivalent accept anything and are reported; untyped functions are skipped", () => {
  const found = typesOf(`
function untyped(a, b) {}
function odd(when: Date, pair: [number, string], fn: () => void, gen: Array<Map<string, number>>, obj: { [k: string]: number }, A: Generic<number>) {}
`);
  assert.equal(found.length, 1);
  assert.deepEqual(found[0]!.types.properties, { when: {}, pair: {}, fn: {}, gen: { type: "array", items: {} }, obj: {}, A: {} });
  assert.deepEqual(found[0]!.unexpressible, [
    "when: Date",
    "pair: [number, string]",
    "fn: () => void",
    "gen: Map<string, number>",
    "obj: ?",
    "A: Generic<number>",
  ]);
});

test("a self-referencing type stops at a bounded depth", () => {
  const [fn] = typesOf(`type Tree = { value: number; child: Tree }; function f(t: Tree) {}`);
  assert.equal(fn!.types.properties.t!.type, "object");
  assert.equal(fn!.unexpressible.length, 1);
});
