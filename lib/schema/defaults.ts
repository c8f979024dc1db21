// Fills in `default` values of properties the caller left out, in nested objects too,
// so the handler sees what the schema promised the model. The arguments are never
// mutated: changed objects are copied. The plan is compiled once per schema, since it
// runs on every call.
import { isRecord } from "../util/guards.ts";
import { setOwn } from "../util/guards.ts";
import type { JsonSchema } from "./types.ts";

export type DefaultsFiller = (args: Record<string, unknown>) => Record<string, unknown>;

interface Slot {
  key: string;
  hasDefault: boolean;
  value: unknown;
  nested: DefaultsFiller | null;
}

const identity: DefaultsFiller = (args) => args;

export function compileDefaults(schema: JsonSchema): DefaultsFiller {
  if (typeof schema !== "object" || !isRecord(schema.properties)) return identity;
  const slots: Slot[] = [];
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (!isRecord(sub)) continue;
    const nested = compileDefaults(sub);
    const hasDefault = "default" in sub;
    if (hasDefault || nested !== identity) slots.push({ key, hasDefault, value: sub.default, nested: nested === identity ? null : nested });
  }
  if (slots.length === 0) return identity;
  return (value) => {
    let out: Record<string, unknown> | null = null;
    for (const slot of slots) {
      // Own properties only: `toString` or `constructor` must not read Object.prototype.
      const current = Object.hasOwn(value, slot.key) ? value[slot.key] : undefined;
      let next: unknown = current;
      if (current === undefined) {
        if (!slot.hasDefault) continue;
        next = structuredClone(slot.value);
      }
      if (slot.nested && isRecord(next)) next = slot.nested(next);
      if (next === current) continue;
      out ??= { ...value };
      setOwn(out, slot.key, next);
    }
    return out ?? value;
  };
}

export function applyDefaults(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  return compileDefaults(schema)(args);
}
