// Fills in `default` values of top-level properties that the caller left out, so the
// handler sees what the schema promised the model.
import type { JsonSchema } from "./types.ts";

export function applyDefaults(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema !== "object" || typeof schema.properties !== "object" || schema.properties === null) return args;
  let out: Record<string, unknown> | null = null;
  for (const [key, sub] of Object.entries(schema.properties as Record<string, unknown>)) {
    if (args[key] !== undefined || typeof sub !== "object" || sub === null || !("default" in sub)) continue;
    out ??= { ...args };
    out[key] = structuredClone((sub as { default: unknown }).default);
  }
  return out ?? args;
}
