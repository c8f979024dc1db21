// String constraints: minLength / maxLength counted in code points, and `pattern`
// (Unicode-aware, unanchored, as ECMA-262 `test`).
import { compilePattern, nonNegativeInteger, typeError, type Family } from "./shared.ts";

/** Length in Unicode code points: a surrogate pair counts once. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export const stringKeywords: Family = (scope) => {
  const minLength = nonNegativeInteger(scope, "minLength");
  const maxLength = nonNegativeInteger(scope, "maxLength");
  const source = scope.schema.pattern;
  const pattern = source === undefined ? undefined : compilePattern(scope, "pattern", source);
  const strict = scope.strictType === "string";
  if (minLength === undefined && maxLength === undefined && pattern === undefined) {
    return strict ? (v, p, e) => typeof v === "string" || typeError(e, p, "string") : null;
  }
  const lo = minLength ?? 0;
  const hi = maxLength ?? Infinity;
  const patternMessage = pattern ? `must match pattern ${pattern.source}` : "";
  return (v, p, e) => {
    if (typeof v !== "string") return !strict || typeError(e, p, "string");
    let ok = true;
    // UTF-16 length bounds the code-point length from above (and from below by half),
    // so counting is needed only near a limit.
    if (v.length < lo || (v.length >> 1 < lo && codePointLength(v) < lo)) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be at least ${lo} characters long` });
    }
    if (v.length > hi && codePointLength(v) > hi) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: `must be at most ${hi} characters long` });
    }
    if (pattern !== undefined && !pattern.test(v)) {
      if (e === null) return false;
      ok = false;
      e.push({ path: p, message: patternMessage });
    }
    return ok;
  };
};
