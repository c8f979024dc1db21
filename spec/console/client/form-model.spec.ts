// The page's schema → form model and form text → arguments: its module, run in Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as forms from "../../../lib/console/client/form-model.js";

type Field = ReturnType<typeof forms.fieldModel>;

test("form model: numbers with bounds and steps, enums, defaults, required, help text", () => {
  const fields = forms.formModel({
    type: "object",
    properties: {
      speed: { type: "number", minimum: 0, description: "Launch speed" },
      g: { type: "number", exclusiveMinimum: 0, default: 9.81 },
      n: { type: "integer", maximum: 10 },
      unit: { type: "string", enum: ["m", "km"], title: "Unit" },
      mode: {
        oneOf: [
          { const: 1, title: "One" },
          { const: 2, title: "Two" },
        ],
      },
      flag: { type: "boolean", default: true },
      tags: { type: "array", items: { type: "string" }, default: ["a", "b"] },
      picks: { type: "array", items: { enum: ["x", "y"] } },
      where: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
      blob: { type: "array", items: { type: "object" } },
    },
    required: ["speed", "unit"],
  });
  const by = Object.fromEntries(fields.map((f) => [f.name, f])) as Record<"speed" | "g" | "n" | "unit" | "mode" | "tags" | "where", Field>;
  assert.deepEqual(
    fields.map((f) => f.kind),
    ["number", "number", "integer", "enum", "enum", "boolean", "list", "multi", "object", "json"],
  );
  assert.deepEqual([by.speed.required, by.speed.min, by.speed.step, by.speed.description], [true, 0, "any", "Launch speed"]);
  assert.deepEqual([by.g.exclusiveMin, forms.initialText(by.g)], [0, "9.81"]);
  assert.equal(by.n.step, 1);
  assert.deepEqual(
    [by.unit.label, by.unit.options],
    [
      "Unit",
      [
        { value: "m", label: "m" },
        { value: "km", label: "km" },
      ],
    ],
  );
  assert.deepEqual(by.mode.options, [
    { value: 1, label: "One" },
    { value: 2, label: "Two" },
  ]);
  assert.equal(forms.initialText(by.tags), "a\nb");
  assert.equal(by.where.fields?.[0]?.required, true);
});

test("form values: typed, optional blanks left out, each mistake named before sending", () => {
  const fields = forms.formModel({
    type: "object",
    properties: {
      a: { type: "number", minimum: 0 },
      g: { type: "number", exclusiveMinimum: 0 },
      n: { type: "integer" },
      s: { type: "string", minLength: 2, pattern: "^[a-z]+$" },
      e: { enum: [1, "two"] },
      b: { type: "boolean" },
      list: { type: "array", items: { type: "number" }, maxItems: 3 },
      picks: { type: "array", items: { enum: ["x", "y"] } },
      obj: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] },
      raw: {},
    },
    required: ["a"],
  });
  const ok = forms.parseFields(fields, {
    a: "1.5",
    g: "",
    n: "3",
    s: "ab",
    e: "1",
    b: true,
    list: "1\n\n2",
    picks: ["1"],
    obj: { lat: "4" },
    raw: '{"k":[1]}',
  });
  assert.deepEqual(ok, { value: { a: 1.5, n: 3, s: "ab", e: "two", b: true, list: [1, 2], picks: ["y"], obj: { lat: 4 }, raw: { k: [1] } } });

  const bad = forms.parseFields(fields, { a: "", g: "0", n: "2.5", s: "A", e: "", b: false, list: "1\nx", picks: [], obj: { lat: "x" }, raw: "{" });
  assert.deepEqual(bad.errors, [
    { path: "a", message: "is required" },
    { path: "g", message: "must be greater than 0" },
    { path: "n", message: "must be a whole number" },
    { path: "s", message: "needs at least 2 characters" },
    { path: "list", message: "item 2 must be a number" },
    { path: "obj.lat", message: "must be a number" },
    { path: "raw", message: "is not valid JSON" },
  ]);
  assert.deepEqual(forms.parseFields(fields, { a: "-1" }).errors, [{ path: "a", message: "must be at least 0" }]);
  assert.deepEqual(forms.parseFields(fields, { a: "1", s: "abC" }).errors, [{ path: "s", message: "does not match the expected pattern" }]);
  assert.deepEqual(forms.parseFields(fields, { a: "1", list: "1\n2\n3\n4" }).errors, [{ path: "list", message: "takes at most 3 items" }]);
});
