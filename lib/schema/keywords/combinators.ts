// Applicators on the same value: allOf, anyOf, oneOf, not, if/then/else.
import { allOf, schemaList, type Check, type Compiler, type Family, type Scope } from "./shared.ts";

function listOf(scope: Scope, c: Compiler, keyword: string): Check[] | null {
  const list = schemaList(scope, keyword);
  return list === undefined ? null : list.map((_, i) => c.same(scope, keyword, i));
}

function anyOf(checks: Check[]): Check {
  const message = "must match at least one schema in anyOf";
  return (v, p, e) => {
    for (const check of checks) if (check(v, p, null)) return true;
    return (e?.push({ path: p, message }), false);
  };
}

function oneOf(checks: Check[]): Check {
  return (v, p, e) => {
    let n = 0;
    for (const check of checks) if (check(v, p, null) && ++n > 1) break;
    if (n === 1) return true;
    const message = n === 0 ? "must match exactly one schema in oneOf (it matches none)" : "must match exactly one schema in oneOf (it matches several)";
    return (e?.push({ path: p, message }), false);
  };
}

function conditional(scope: Scope, c: Compiler): Check | null {
  if (scope.schema.if === undefined) return null;
  const test = c.same(scope, "if");
  const then = scope.schema.then === undefined ? null : c.same(scope, "then");
  const otherwise = scope.schema.else === undefined ? null : c.same(scope, "else");
  if (then === null && otherwise === null) return null;
  return (v, p, e) => {
    const branch = test(v, p, null) ? then : otherwise;
    return branch === null || branch(v, p, e);
  };
}

export const combinatorKeywords: Family = (scope, c) => {
  const checks: Check[] = [];
  const all = listOf(scope, c, "allOf");
  if (all) checks.push(allOf(all));
  const any = listOf(scope, c, "anyOf");
  if (any) checks.push(anyOf(any));
  const one = listOf(scope, c, "oneOf");
  if (one) checks.push(oneOf(one));
  if (scope.schema.not !== undefined) {
    const inner = c.same(scope, "not");
    const message = "must not match the schema in not";
    checks.push((v, p, e) => !inner(v, p, null) || (e?.push({ path: p, message }), false));
  }
  const cond = conditional(scope, c);
  if (cond) checks.push(cond);
  return checks.length ? allOf(checks) : null;
};
