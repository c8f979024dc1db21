// One file through the compile step: the JavaScript it gives runs, keeps doc comments,
// and carries each typed function's parameter schema under Symbol.for("hubmcp.paramTypes").
import { test } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";
import { compileFile } from "../../lib/launcher/ts-compile.ts";

const TYPES = Symbol.for("hubmcp.paramTypes");
type Tagged = { [TYPES]?: { properties: Record<string, unknown> } } & ((...args: never[]) => unknown);

/** Runs compiled module code (no imports) and returns what it assigns to `out`. */
function run(code: string): Record<string, Tagged> {
  const body = code.replace(/^export /gm, "");
  return new Function(`const out = {};\n${body}\nreturn out;`)() as Record<string, Tagged>;
}

test("typed declarations, expressions, arrows and nested functions are tagged; names and comments survive", () => {
  const source = `out.late = declared; // used before its declaration: declarations are tagged where they are hoisted
function declared(a: number) {
  /** A declared tool. */
  return a;
}
const named = (b: string) => b;
out.named = named;
out.wrapped = [function (c: boolean) { return c; }][0];
out.curried = (d: number) => (e: number) => d + e;
out.inner = out.curried(1);
out.untyped = function (f) { return f; };
{
  function blocky(g: number) { return g; }
  out.blocky = blocky;
}
`;
  const compiled = compileFile(ts, source, "app.ts", () => undefined);
  assert.deepEqual(compiled.errors, []);
  const out = run(compiled.code);
  const props = (fn: Tagged) => fn[TYPES]?.properties;
  assert.deepEqual(props(out.late!), { a: { type: "number" } });
  assert.match(out.late!.toString(), /\/\*\* A declared tool\. \*\//);
  assert.equal(out.named!.name, "named");
  assert.deepEqual(props(out.named!), { b: { type: "string" } });
  assert.deepEqual(props(out.wrapped!), { c: { type: "boolean" } });
  assert.deepEqual(props(out.curried!), { d: { type: "number" } });
  assert.deepEqual(props(out.inner!), { e: { type: "number" } });
  assert.equal(props(out.untyped!), undefined);
  assert.deepEqual(props(out.blocky!), { g: { type: "number" } });
});

test("module specifiers go through the map; type-only imports disappear; a shebang stays first", () => {
  const source = `#!/usr/bin/env node
import { thing } from "./dep.js";
import type { Shape } from "./types.js";
export { other } from "pkg";
const later = () => import("./lazy.ts");
export const use = (s: Shape, n: number) => [thing, later, n];
`;
  const seen: string[] = [];
  const compiled = compileFile(ts, source, "app.ts", (s) => {
    seen.push(s);
    return s.startsWith("./") ? s.replace(/\.(js|ts)$/, ".mjs") : "file:///pkg/index.js";
  });
  assert.deepEqual(seen, ["./dep.js", "./types.js", "pkg", "./lazy.ts"]);
  assert.match(compiled.code, /^#!\/usr\/bin\/env node\n/);
  assert.match(compiled.code, /from "\.\/dep\.mjs"/);
  assert.match(compiled.code, /from "file:\/\/\/pkg\/index\.js"/);
  assert.match(compiled.code, /import\("\.\/lazy\.mjs"\)/);
  assert.doesNotMatch(compiled.code, /types/);
});

test("syntax errors are reported with their place; unexpressible types with their function", () => {
  const broken = compileFile(ts, "const x: number = (1;\n", "bad.ts", () => undefined);
  assert.deepEqual(broken.errors, ["bad.ts:1:21 ')' expected."]);
  const odd = compileFile(ts, "\nexport function when(at: Date) { return at; }\n", "app.ts", () => undefined);
  assert.deepEqual(odd.unexpressible, ["line 2 when(at: Date)"]);
});
