// The inputSchema of a plain handler, read from its parameter list: names become
// properties, a declared TypeScript type (when start_mcp compiled the app) or else a
// literal default gives the type, a parameter with neither a default nor `?` is
// required, and `@param` text becomes the description.
import type { Param, ParamField } from "./params.ts";
import { parseLiteral } from "./literal.ts";
import type { SchemaObject } from "./types.ts";

/** Declared types of a handler's arguments, by name (see registry/param-types.ts). */
export interface DeclaredTypes {
  properties: Record<string, SchemaObject>;
  optional: readonly string[];
}

// A whole-number default still means `number`: scientific inputs take 0.5 where the
// author wrote 2. `integer` comes only from an explicit schema or `s.integer()`.
function typeOf(value: unknown): string | undefined {
  if (typeof value === "number") return "number";
  if (typeof value === "string" || typeof value === "boolean") return typeof value;
  if (Array.isArray(value)) return "array";
  if (typeof value === "object" && value !== null) return "object";
  return undefined;
}

function property(field: ParamField, description: string | undefined, declared: SchemaObject | undefined): SchemaObject {
  const prop: SchemaObject = declared ? { ...declared } : {};
  if (field.defaultSource !== undefined) {
    const literal = parseLiteral(field.defaultSource);
    if (literal.ok && (typeof literal.value !== "number" || Number.isFinite(literal.value))) {
      const type = typeOf(literal.value);
      if (type !== undefined && declared === undefined) prop.type = type;
      prop.default = literal.value;
    }
  }
  if (description) prop.description = description;
  return prop;
}

export function inputSchemaFromParams(params: Param[], descriptions: Record<string, string>, types?: DeclaredTypes | null): SchemaObject {
  const first = params[0];
  const fields: ParamField[] = first?.kind === "object" ? first.fields : params.flatMap((p) => (p.kind === "name" ? [p] : []));
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const field of fields) {
    const declared = types && Object.hasOwn(types.properties, field.name) ? types.properties[field.name] : undefined;
    properties[field.name] = property(field, Object.hasOwn(descriptions, field.name) ? descriptions[field.name] : undefined, declared);
    if (field.defaultSource === undefined && !types?.optional.includes(field.name)) required.push(field.name);
  }
  return required.length ? { type: "object", properties, required } : { type: "object", properties };
}
