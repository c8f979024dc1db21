// Numeric bounds: minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf.
import { fail, finiteNumber, type Family } from "./shared.ts";

/** Division leaves float noise (0.0075 / 0.0001 = 74.99999999999999); allow for it. */
function isMultiple(value: number, divisor: number): boolean {
  const q = value / divisor;
  if (!Number.isFinite(q)) return false;
  const r = Math.round(q);
  return Math.abs(q - r) <= 1e-9 * Math.max(1, Math.abs(q));
}

export const numberKeywords: Family = (scope) => {
  const min = finiteNumber(scope, "minimum");
  const max = finiteNumber(scope, "maximum");
  const exMin = finiteNumber(scope, "exclusiveMinimum");
  const exMax = finiteNumber(scope, "exclusiveMaximum");
  const step = finiteNumber(scope, "multipleOf");
  if (step !== undefined && step <= 0) fail(scope, "multipleOf", "must be greater than 0");
  if (min === undefined && max === undefined && exMin === undefined && exMax === undefined && step === undefined) return null;
  const lo = min ?? -Infinity;
  const hi = max ?? Infinity;
  const xlo = exMin ?? -Infinity;
  const xhi = exMax ?? Infinity;
  return (v, p, e) => {
    if (typeof v !== "number") return true;
    let ok = true;
    if (v < lo) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be >= ${lo}` });
    }
    if (v > hi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be <= ${hi}` });
    }
    if (exMin !== undefined && v <= xlo) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be > ${xlo}` });
    }
    if (exMax !== undefined && v >= xhi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be < ${xhi}` });
    }
    if (step !== undefined && !(Number.isInteger(v) && Number.isInteger(step) ? v % step === 0 : isMultiple(v, step))) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be a multiple of ${step}` });
    }
    return ok;
  };
};
