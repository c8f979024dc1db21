// `type`, `enum` and `const`: what kind of value, or exactly which values.
import { jsonEqual } from "../equal.ts";
import { allOf, fail, show, type Check, type Family, type Scope } from "./shared.ts";
import { isRecord } from "../../util/guards.ts";

const TYPE_TESTS = {
  null: (v: unknown) => v === null,
  boolean: (v: unknown) => typeof v === "boolean",
  object: isRecord,
  array: (v: unknown) => Array.isArray(v),
  number: (v: unknown) => typeof v === "number" && Number.isFinite(v),
  integer: (v: unknown) => Number.isInteger(v),
  string: (v: unknown) => typeof v === "string",
} as const satisfies Record<string, (v: unknown) => boolean>;

type TypeName = keyof typeof TYPE_TESTS;
const FAMILY_TYPES = new Set(["number", "integer", "string", "array", "object"] as const);

/** The single type a keyword family can check in its own closure, if the schema has one. */
export function strictTypeOf(type: unknown): "number" | "integer" | "string" | "array" | "object" | undefined {
  const t = Array.isArray(type) && type.length === 1 ? type[0] : type;
  return FAMILY_TYPES.has(t) ? (t as "number" | "integer" | "string" | "array" | "object") : undefined;
}
const isTypeName = (t: unknown): t is TypeName => typeof t === "string" && Object.hasOwn(TYPE_TESTS, t);

function typeCheck(scope: Scope): Check | null {
  const raw = scope.schema.type;
  if (raw === undefined) return null;
  const names = Array.isArray(raw) ? raw : [raw];
  if (names.length === 0 || !names.every(isTypeName) || new Set(names).size !== names.length) {
    fail(scope, "type", `must be one of ${Object.keys(TYPE_TESTS).join(", ")}, or a list of distinct ones`);
  }
  if (scope.strictType !== undefined) return null;
  const message = `must be ${names.join(" or ")}`;
  if (names.length === 1) {
    const test = TYPE_TESTS[names[0]!];
    return (v, p, e) => test(v) || (e?.push({ path: p, message }), false);
  }
  const tests = names.map((n) => TYPE_TESTS[n]);
  return (v, p, e) => tests.some((t) => t(v)) || (e?.push({ path: p, message }), false);
}

function enumCheck(scope: Scope): Check | null {
  const values = scope.schema.enum;
  if (values === undefined) return null;
  if (!Array.isArray(values)) fail(scope, "enum", "must be an array");
  const message = values.length <= 10 ? `must be one of ${values.map(show).join(", ")}` : "must be one of the allowed values";
  if (values.every((x) => x === null || typeof x !== "object")) {
    const set = new Set(values);
    return (v, p, e) => set.has(v) || (e?.push({ path: p, message }), false);
  }
  return (v, p, e) => values.some((x) => jsonEqual(x, v)) || (e?.push({ path: p, message }), false);
}

function constCheck(scope: Scope): Check | null {
  if (!Object.hasOwn(scope.schema, "const")) return null;
  const expected = scope.schema.const;
  const message = `must be ${show(expected)}`;
  return (v, p, e) => jsonEqual(expected, v) || (e?.push({ path: p, message }), false);
}

export const typeKeywords: Family = (scope) => {
  const checks = [typeCheck(scope), enumCheck(scope), constCheck(scope)].filter((c): c is Check => c !== null);
  return checks.length ? allOf(checks) : null;
};
