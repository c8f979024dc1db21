// JSON equality as JSON Schema defines it: numbers by value (1 equals 1.0), objects by
// their key/value sets regardless of order, arrays element by element.

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A string equal for exactly the JSON-equal values: lets uniqueItems use a Set. */
export function canonicalKey(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value === "string" ? `s${JSON.stringify(value)}` : `${typeof value}:${String(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalKey((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
