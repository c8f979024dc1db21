// Array keywords: prefixItems, items, contains with min/maxContains, min/maxItems,
// uniqueItems.
import { canonicalKey, jsonEqual } from "../equal.ts";
import { allOf, fail, nonNegativeInteger, schemaList, typeError, type Check, type Compiler, type Family, type Scope } from "./shared.ts";

function contains(scope: Scope, c: Compiler): Check | null {
  if (scope.schema.contains === undefined) return null;
  const check = c.member(scope, "contains");
  const min = nonNegativeInteger(scope, "minContains") ?? 1;
  const max = nonNegativeInteger(scope, "maxContains") ?? Infinity;
  const tooFew = min === 1 ? "must contain a matching item" : `must contain at least ${min} matching items`;
  const tooMany = `must contain at most ${max} matching items`;
  return (v, p, e) => {
    if (!Array.isArray(v)) return true;
    let n = 0;
    for (let i = 0; i < v.length; i++) if (check(v[i], p, null)) n++;
    if (n < min) return (e?.push({ path: p, message: tooFew }), false);
    if (n > max) return (e?.push({ path: p, message: tooMany }), false);
    return true;
  };
}

/** Indices of the first two JSON-equal items, or null. */
function firstDuplicate(v: unknown[]): [number, number] | null {
  if (v.length < 16) {
    for (let i = 1; i < v.length; i++) for (let j = 0; j < i; j++) if (jsonEqual(v[i], v[j])) return [j, i];
    return null;
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < v.length; i++) {
    const key = canonicalKey(v[i]);
    const prev = seen.get(key);
    if (prev !== undefined) return [prev, i];
    seen.set(key, i);
  }
  return null;
}

/** Items, sizes and uniqueness in one closure; with a strict `type: "array"` the type too. */
function elements(scope: Scope, c: Compiler, strict: boolean): Check | null {
  const prefix = schemaList(scope, "prefixItems") ?? [];
  const hasItems = scope.schema.items !== undefined;
  if (Array.isArray(scope.schema.items)) fail(scope, "items", "must be a schema (use prefixItems for tuples)");
  const min = nonNegativeInteger(scope, "minItems");
  const max = nonNegativeInteger(scope, "maxItems");
  const unique = scope.schema.uniqueItems;
  if (unique !== undefined && typeof unique !== "boolean") fail(scope, "uniqueItems", "must be a boolean");
  if (!strict && prefix.length === 0 && !hasItems && min === undefined && max === undefined && unique !== true) return null;
  const heads = prefix.map((_, i) => c.member(scope, "prefixItems", i));
  const rest = hasItems ? c.member(scope, "items") : null;
  const k = heads.length;
  const lo = min ?? 0;
  const hi = max ?? Infinity;
  return (v, p, e) => {
    if (!Array.isArray(v)) return !strict || typeError(e, p, "array");
    let ok = true;
    if (v.length < lo) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must have at least ${lo} items` });
    }
    if (v.length > hi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must have at most ${hi} items` });
    }
    for (let i = 0; i < v.length; i++) {
      const check = i < k ? heads[i]! : rest;
      if (check === null) break;
      if (!check(v[i], e === null ? p : `${p}/${i}`, e)) {
        if (e === null) return false;
        ok = false;
      }
    }
    if (unique === true) {
      const dup = firstDuplicate(v);
      if (dup !== null) {
        if (e === null) return false;
        ok = false;
        e.push({ path: p, message: `must not contain duplicate items (${dup[0]} and ${dup[1]} are equal)` });
      }
    }
    return ok;
  };
}

export const arrayKeywords: Family = (scope, c) => {
  const present = [elements(scope, c, scope.strictType === "array"), contains(scope, c)].filter((x): x is Check => x !== null);
  return present.length ? allOf(present) : null;
};
