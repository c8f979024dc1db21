// What every keyword family shares: the shape of a compiled check, the compiler seam a
// family calls back into, and small helpers for schema checking and error paths.
import { SchemaError, type JsonSchema, type SchemaObject, type ValidationError } from "../types.ts";
import { isRecord } from "../../util/guards.ts";

/**
 * A compiled check. `errors === null` asks only for a yes/no answer (the fast path, which
 * may stop at the first failure and never builds paths); an array asks for every error.
 */
export type Check = (value: unknown, path: string, errors: ValidationError[] | null) => boolean;

/** Where a schema object sits: itself, its JSON Pointer location, and its base URI. */
export interface Scope {
  readonly schema: SchemaObject;
  readonly location: string;
  readonly base: string;
  /**
   * The node's `type` when it names exactly one of number, integer, string, array or
   * object: that family then checks the type itself, in the same closure, which saves a
   * call per value on the hot path.
   */
  readonly strictType: "number" | "integer" | "string" | "array" | "object" | undefined;
}

export interface Compiler {
  readonly assertFormats: boolean;
  /** Compiles `schema[keyword]` (or `schema[keyword][key]`) applied to the same value. */
  same(scope: Scope, keyword: string, key?: string | number): Check;
  /** Compiles `schema[keyword]` (or `schema[keyword][key]`) applied to a member of the value. */
  member(scope: Scope, keyword: string, key?: string | number): Check;
  /** Compiles a `$ref` found in `scope`. */
  ref(scope: Scope, ref: string): Check;
}

/** One keyword family: null when none of its keywords appear in the schema. */
export type Family = (scope: Scope, compiler: Compiler) => Check | null;

export const ALWAYS: Check = () => true;

export const hasOwn = (o: object, key: string): boolean => Object.hasOwn(o, key);

/** JSON Pointer escaping of one path segment (RFC 6901). */
export const escapeSegment = (key: string): string => (key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key);

export const at = (location: string, ...segments: Array<string | number>): string =>
  segments.reduce<string>((loc, s) => `${loc}/${escapeSegment(String(s))}`, location);

/** `keyword` may be a path below the schema (`patternProperties/a~1b`), already escaped. */
export function fail(scope: Scope, keyword: string, message: string): never {
  throw new SchemaError(`${scope.location}/${keyword}`, message);
}

export function nonNegativeInteger(scope: Scope, keyword: string): number | undefined {
  const v = scope.schema[keyword];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) fail(scope, keyword, "must be a non-negative integer");
  return v;
}

export function finiteNumber(scope: Scope, keyword: string): number | undefined {
  const v = scope.schema[keyword];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) fail(scope, keyword, "must be a number");
  return v;
}

export function schemaMap(scope: Scope, keyword: string): Record<string, JsonSchema> | undefined {
  const v = scope.schema[keyword];
  if (v === undefined) return undefined;
  if (!isRecord(v)) fail(scope, keyword, "must be an object of schemas");
  return v as Record<string, JsonSchema>;
}

export function schemaList(scope: Scope, keyword: string): JsonSchema[] | undefined {
  const v = scope.schema[keyword];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0) fail(scope, keyword, "must be a non-empty array of schemas");
  return v as JsonSchema[];
}

/** Compiles a `pattern`: Unicode-aware, as JSON Schema's regular expressions are. */
export function compilePattern(scope: Scope, location: string, source: unknown): RegExp {
  if (typeof source !== "string") throw new SchemaError(`${scope.location}/${location}`, "must be a regular expression string");
  try {
    return new RegExp(source, "u");
  } catch {
    try {
      // Some ECMA-262 patterns (`\-`, `\_`) are legal only outside Unicode mode.
      return new RegExp(source);
    } catch {
      throw new SchemaError(`${scope.location}/${location}`, "is not a valid regular expression");
    }
  }
}

/** Runs checks in order; the fast path stops at the first failure. */
export function allOf(checks: Check[]): Check {
  if (checks.length === 0) return ALWAYS;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [Check, Check];
    return (v, p, e) => {
      if (e === null) return a(v, p, null) && b(v, p, null);
      const x = a(v, p, e);
      return b(v, p, e) && x;
    };
  }
  const n = checks.length;
  return (v, p, e) => {
    let ok = true;
    for (let i = 0; i < n; i++) {
      if (!checks[i]!(v, p, e)) {
        if (e === null) return false;
        ok = false;
      }
    }
    return ok;
  };
}

/**
 * A function generated from `body` with `values` bound to `names`, or `fallback` where code
 * generation is disabled (`--disallow-code-generation-from-strings`). Callers put only
 * JSON.stringify'd strings and finite numbers into `body`, never raw schema text.
 */
export function generate<F>(names: string[], values: unknown[], body: string, fallback: F): F {
  try {
    return new Function(...names, `"use strict";\n${body}`)(...values) as F;
  } catch (err) {
    // Only a refusal to generate code falls back; a SyntaxError is our bug and must surface.
    if (err instanceof EvalError) return fallback;
    throw err;
  }
}

/** Records a type mismatch; `false` for returning. */
export function typeError(errors: ValidationError[] | null, path: string, type: string): false {
  errors?.push({ path, message: `must be ${type}` });
  return false;
}

/** Shortens a schema value for a message (values come from the schema, never the instance). */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
