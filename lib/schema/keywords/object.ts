// Object keywords: properties, required, additionalProperties, patternProperties,
// propertyNames, min/maxProperties, dependentRequired, dependentSchemas.
import type { ValidationError } from "../types.ts";
import {
  allOf,
  compilePattern,
  escapeSegment,
  fail,
  hasOwn,
  nonNegativeInteger,
  schemaMap,
  type Check,
  type Compiler,
  type Family,
  type Scope,
} from "./shared.ts";
import { declaredCheck } from "./declared.ts";
import { isRecord } from "../../util/guards.ts";

function stringList(scope: Scope, keyword: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((x) => typeof x === "string") || new Set(value).size !== value.length) {
    fail(scope, keyword, "must be an array of distinct strings");
  }
  return value;
}

/** `properties` and `required`; with a strict `type: "object"` the type too. */
function declared(scope: Scope, c: Compiler, strict: boolean): Check | null {
  const props = schemaMap(scope, "properties") ?? {};
  const required = scope.schema.required === undefined ? [] : stringList(scope, "required", scope.schema.required);
  const names = [...new Set([...Object.keys(props), ...required])];
  if (names.length === 0 && !strict) return null;
  return declaredCheck({
    names,
    checks: names.map((name) => (hasOwn(props, name) ? c.member(scope, "properties", name) : null)),
    required: names.map((name) => required.includes(name)),
    strict,
  });
}

/** `patternProperties` and `additionalProperties`, which both look at every key. */
function undeclared(scope: Scope, c: Compiler): Check | null {
  const patternMap = schemaMap(scope, "patternProperties");
  const hasAdditional = scope.schema.additionalProperties !== undefined;
  if (patternMap === undefined && !hasAdditional) return null;
  const known = new Set(Object.keys(schemaMap(scope, "properties") ?? {}));
  const patterns = Object.keys(patternMap ?? {}).map((source) => ({
    regex: compilePattern(scope, `patternProperties/${escapeSegment(source)}`, source),
    check: c.member(scope, "patternProperties", source),
  }));
  const additional = hasAdditional ? c.member(scope, "additionalProperties") : null;
  return (v, p, e) => {
    if (!isRecord(v)) return true;
    let ok = true;
    for (const key of Object.keys(v)) {
      const path = e === null ? p : `${p}/${escapeSegment(key)}`;
      let matched = known.has(key);
      for (const { regex, check } of patterns) {
        if (!regex.test(key)) continue;
        matched = true;
        if (!check(v[key], path, e)) {
          if (e === null) return false;
          ok = false;
        }
      }
      if (!matched && additional !== null && !additional(v[key], path, e)) {
        if (e === null) return false;
        ok = false;
      }
    }
    return ok;
  };
}

function propertyNames(scope: Scope, c: Compiler): Check | null {
  if (scope.schema.propertyNames === undefined) return null;
  const check = c.member(scope, "propertyNames");
  return (v, p, e) => {
    if (!isRecord(v)) return true;
    let ok = true;
    for (const key of Object.keys(v)) {
      if (check(key, p, null)) continue;
      if (e === null) return false;
      ok = false;
      const inner: ValidationError[] = [];
      check(key, p, inner);
      for (const err of inner) e.push({ path: `${p}/${escapeSegment(key)}`, message: `property name ${err.message}` });
    }
    return ok;
  };
}

function counts(scope: Scope): Check | null {
  const min = nonNegativeInteger(scope, "minProperties");
  const max = nonNegativeInteger(scope, "maxProperties");
  if (min === undefined && max === undefined) return null;
  const lo = min ?? 0;
  const hi = max ?? Infinity;
  return (v, p, e) => {
    if (!isRecord(v)) return true;
    const n = Object.keys(v).length;
    if (n < lo) return (e?.push({ path: p, message: `must have at least ${lo} properties` }), false);
    if (n > hi) return (e?.push({ path: p, message: `must have at most ${hi} properties` }), false);
    return true;
  };
}

function dependencies(scope: Scope, c: Compiler): Check | null {
  const reqMap = scope.schema.dependentRequired;
  const schemas = schemaMap(scope, "dependentSchemas");
  if (reqMap === undefined && schemas === undefined) return null;
  if (reqMap !== undefined && !isRecord(reqMap)) fail(scope, "dependentRequired", "must be an object of string arrays");
  const rules = Object.entries(reqMap ?? {}).map(([key, list]) => ({
    key,
    needs: stringList(scope, `dependentRequired/${escapeSegment(key)}`, list),
  }));
  const subs = Object.keys(schemas ?? {}).map((key) => ({ key, check: c.same(scope, "dependentSchemas", key) }));
  return (v, p, e) => {
    if (!isRecord(v)) return true;
    let ok = true;
    for (const { key, needs } of rules) {
      if (!hasOwn(v, key)) continue;
      for (const need of needs) {
        if (hasOwn(v, need)) continue;
        if (e === null) return false;
        ok = false;
        e.push({ path: `${p}/${escapeSegment(need)}`, message: `is required when ${JSON.stringify(key)} is present` });
      }
    }
    for (const { key, check } of subs) {
      if (hasOwn(v, key) && !check(v, p, e)) {
        if (e === null) return false;
        ok = false;
      }
    }
    return ok;
  };
}

export const objectKeywords: Family = (scope, c) => {
  const checks = [declared(scope, c, scope.strictType === "object"), undeclared(scope, c), propertyNames(scope, c), counts(scope), dependencies(scope, c)];
  const present = checks.filter((x): x is Check => x !== null);
  return present.length ? allOf(present) : null;
};
