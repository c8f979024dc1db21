// Fills in `default` values of properties the caller left out, in nested objects too,
// so the handler sees what the schema promised the model. The arguments are never
// mutated: changed objects are copied.
import { isPlainObject } from "./keywords/shared.ts";
import type { JsonSchema } from "./types.ts";

function fill(schema: JsonSchema, value: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema !== "object" || !isPlainObject(schema.properties)) return value;
  let out: Record<string, unknown> | null = null;
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (!isPlainObject(sub)) continue;
    const current = value[key];
    let next: unknown = current;
    if (current === undefined) {
      if (!("default" in sub)) continue;
      next = structuredClone(sub.default);
    }
    if (isPlainObject(next)) next = fill(sub, next);
    if (next === current) continue;
    out ??= { ...value };
    out[key] = next;
  }
  return out ?? value;
}

export function applyDefaults(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  return fill(schema, args);
}
