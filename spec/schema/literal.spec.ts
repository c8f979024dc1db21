import { test } from "node:test";
import assert from "node:assert/strict";
import { parseLiteral } from "../../lib/schema/literal.ts";

const value = (src: string) => {
  const r = parseLiteral(src);
  assert.ok(r.ok, `${src} should be a literal`);
  return r.value;
};

test("reads JavaScript literals without evaluating anything", () => {
  const cases: Array<[string, unknown]> = [
    ["0", 0],
    ["-3", -3],
    ["+2.5", 2.5],
    ["- 1", -1],
    ["1e3", 1000],
    ["-2.5E-3", -0.0025],
    [".5", 0.5],
    ["5.", 5],
    ["1_000", 1000],
    ["0x1F", 31],
    ["0b101", 5],
    ["0o17", 15],
    ["'it\\'s'", "it's"],
    ['"a\\n\\t\\"b\\\\"', 'a\n\t"b\\'],
    ["`plain ${'$'}`".replace("${'$'}", "$"), "plain $"],
    ["'\\x41\\u0042\\u{1F600}\\0'", "AB😀\0"],
    ["'a\\\nb'", "ab"],
    ["'\\q'", "q"],
    ["`two\nlines`", "two\nlines"],
    ["true", true],
    ["false", false],
    ["null", null],
    ["[]", []],
    ["[1, 'a', [true],]", [1, "a", [true]]],
    ["{}", {}],
    ["{a: 1, 'b c': [2], \"d\": {e: null}, 3: 'x', $f_1: -1,}", { a: 1, "b c": [2], d: { e: null }, 3: "x", $f_1: -1 }],
    ["  { __proto__: 1 }  ", JSON.parse('{"__proto__": 1}')],
  ];
  for (const [src, expected] of cases) assert.deepEqual(value(src), expected, src);
  assert.equal(Object.getPrototypeOf(value("{__proto__: {x: 1}}")), Object.prototype);
});

test("anything else is not a literal", () => {
  const bad = [
    "",
    "x",
    "undefined",
    "Math.PI",
    "f()",
    "1 + 2",
    "10n",
    "1a",
    "`a${b}`",
    "'unterminated",
    "'two\nlines'",
    "'\\1'",
    "'\\xZZ'",
    "'\\u{110000}'",
    "[1 2]",
    "[1,,2]",
    "{a}",
    "{a: 1 b: 2}",
    "{[k]: 1}",
    "{a: 1",
    "new Date()",
    "-x",
    "'\\",
  ];
  for (const src of bad) assert.deepEqual(parseLiteral(src), { ok: false }, src);
});
