// Numeric bounds: minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf.
import { fail, finiteNumber, generate, typeError, type Check, type Family } from "./shared.ts";

/**
 * Division leaves float noise (0.0075 / 0.0001 = 74.99999999999999); allow a few ulps of
 * the quotient, no more, so 2000000000.5 is still not a multiple of 1.
 */
function isMultiple(value: number, divisor: number): boolean {
  if (Number.isInteger(value) && Number.isInteger(divisor)) return value % divisor === 0;
  const q = value / divisor;
  if (!Number.isFinite(q)) return false;
  return Math.abs(q - Math.round(q)) <= 4 * Number.EPSILON * Math.abs(q);
}

export const numberKeywords: Family = (scope) => {
  const min = finiteNumber(scope, "minimum");
  const max = finiteNumber(scope, "maximum");
  const exMin = finiteNumber(scope, "exclusiveMinimum");
  const exMax = finiteNumber(scope, "exclusiveMaximum");
  const step = finiteNumber(scope, "multipleOf");
  if (step !== undefined && step <= 0) fail(scope, "multipleOf", "must be greater than 0");
  const strict = scope.strictType === "number" || scope.strictType === "integer" ? scope.strictType : undefined;
  const bounded = !(min === undefined && max === undefined && exMin === undefined && exMax === undefined && step === undefined);
  if (strict === "number" && !bounded) return (v, p, e) => (typeof v === "number" && Number.isFinite(v)) || typeError(e, p, "number");
  if (strict === "integer" && !bounded) return (v, p, e) => Number.isInteger(v) || typeError(e, p, "integer");
  if (!bounded) return null;
  const lo = min ?? -Infinity;
  const hi = max ?? Infinity;
  const xlo = exMin ?? -Infinity;
  const xhi = exMax ?? Infinity;
  const slow: Check = (v, p, e) => {
    if (strict === "integer" ? !Number.isInteger(v) : strict === "number" ? typeof v !== "number" || !Number.isFinite(v) : typeof v !== "number") {
      return strict === undefined || typeError(e, p, strict);
    }
    const n = v as number;
    let ok = true;
    if (n < lo) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be >= ${lo}` });
    }
    if (n > hi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be <= ${hi}` });
    }
    if (exMin !== undefined && n <= xlo) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be > ${xlo}` });
    }
    if (exMax !== undefined && n >= xhi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be < ${xhi}` });
    }
    if (step !== undefined && !(Number.isInteger(n) && Number.isInteger(step) ? n % step === 0 : isMultiple(n, step))) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be a multiple of ${step}` });
    }
    return ok;
  };
  // The yes/no path, generated with the bounds as constants; errors come from `slow`.
  const tests = [
    strict === "integer" ? "Number.isInteger(v)" : 'typeof v === "number" && Number.isFinite(v)',
    min !== undefined ? `v >= ${min}` : "",
    max !== undefined ? `v <= ${max}` : "",
    exMin !== undefined ? `v > ${exMin}` : "",
    exMax !== undefined ? `v < ${exMax}` : "",
    step !== undefined ? "multiple(v)" : "",
  ].filter(Boolean);
  const inRange = tests.slice(1).join(" && ") || "true";
  const answer = strict === undefined ? `typeof v !== "number" || (${inRange})` : tests.join(" && ");
  const multiple = (v: number) => (Number.isInteger(v) && Number.isInteger(step) ? v % step! === 0 : isMultiple(v, step!));
  return generate(["slow", "multiple"], [slow, multiple], `return function number(v, p, e) { return e === null ? ${answer} : slow(v, p, e); };`, slow);
};
