// Parameter lists read from function source, in every form a handler is written in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readSignature, type Signature } from "../../lib/registry/signature.ts";
import { readDocComment } from "../../lib/registry/doc-comment.ts";

const fn = (src: string): Function => new Function(`return (${src})`)();
const params = (sig: Signature) => (sig.ok ? sig.params : sig.reason);

test("positional parameters with defaults, in every function form", () => {
  const expected = [
    { kind: "name", name: "a" },
    { kind: "name", name: "b", defaultSource: "2" },
  ];
  for (const src of [
    "function add(a, b = 2) { return a + b; }",
    "async function add(a, b = 2) { return a + b; }",
    "(a, b = 2) => a + b",
    "async (a, b = 2) => { return a + b; }",
    "({ add(a, b = 2) { return a + b; } }).add",
    "({ async add(a, b = 2) { return a + b; } }).add",
    "function* add(a, b = 2) {}",
  ]) {
    assert.deepEqual(params(readSignature(fn(src))), expected, src);
  }
  assert.deepEqual(params(readSignature(fn("x => x"))), [{ kind: "name", name: "x" }]);
  assert.deepEqual(params(readSignature(fn("async x => x"))), [{ kind: "name", name: "x" }]);
  assert.deepEqual(params(readSignature(fn("() => 1"))), []);
});

test("a destructured first parameter lists its fields, renames and defaults", () => {
  const sig = readSignature(fn("function f({ a, b = 2, tags = [], c: alias = 'x,y', 'quoted key': q = 1, ...rest }, ctx) {}"));
  assert.deepEqual(params(sig), [
    {
      kind: "object",
      fields: [
        { name: "a" },
        { name: "b", defaultSource: "2" },
        { name: "tags", defaultSource: "[]" },
        { name: "c", defaultSource: "'x,y'" },
        { name: "quoted key", defaultSource: "1" },
      ],
      rest: true,
    },
    { kind: "name", name: "ctx" },
  ]);
  assert.deepEqual(params(readSignature(fn("({ a } = {}) => a"))), [{ kind: "object", fields: [{ name: "a" }], rest: false, defaultSource: "{}" }]);
});

test("comments, strings and nested brackets in defaults do not confuse the reader", () => {
  const sig = readSignature(fn('function f(/* units */ a = "(,)", b = [1, [2, 3]], c = { x: `a,${1}` }, d = a == b) {}'));
  assert.deepEqual(params(sig), [
    { kind: "name", name: "a", defaultSource: '"(,)"' },
    { kind: "name", name: "b", defaultSource: "[1, [2, 3]]" },
    { kind: "name", name: "c", defaultSource: "{ x: `a,${1}` }" },
    { kind: "name", name: "d", defaultSource: "a == b" },
  ]);
});

test("rest and array patterns are reported for the caller to refuse", () => {
  assert.deepEqual(params(readSignature(fn("(...args) => args"))), [{ kind: "rest", name: "args" }]);
  assert.deepEqual(params(readSignature(fn("([a, b]) => a"))), [{ kind: "array" }]);
});

test("bound, native and class sources are unreadable, with a reason", () => {
  assert.match(params(readSignature(fn("function f(a) {}").bind(null))) as string, /bound or native/);
  assert.match(params(readSignature(Math.max)) as string, /bound or native/);
  assert.match(params(readSignature(fn("class A {}"))) as string, /class/);
});

test("the body after the parameter list carries the doc comment", () => {
  const sig = readSignature(
    fn("function f(a) {\n  /**\n   * Does a thing.\n   * @param a the input, in metres\n   *   (never negative)\n   * @returns nothing\n   */\n  return a;\n}"),
  );
  assert.ok(sig.ok);
  assert.deepEqual(readDocComment(sig.body), { description: "Does a thing.", params: { a: "the input, in metres (never negative)" } });
  const arrow = readSignature(fn("(a) => a"));
  assert.ok(arrow.ok);
  assert.equal(readDocComment(arrow.body), null);
  assert.deepEqual(readDocComment("/** @param {number} [b=2] - the second */"), { description: "", params: { b: "the second" } });
});
