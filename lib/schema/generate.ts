// The inputSchema of a plain handler, read from its parameter list: names become
// properties, a literal default gives the type and `default`, a parameter without a
// default is required, and `@param` text becomes the description.
import type { Param, ParamField } from "./params.ts";
import { parseLiteral } from "./literal.ts";
import type { SchemaObject } from "./types.ts";

function typeOf(value: unknown, source: string): string | undefined {
  if (typeof value === "number") {
    // `1.0` and `1e3` are written as reals, so the parameter takes reals.
    const text = source.trim().replace(/^[+-]\s*/, "");
    if (/^0[xXbBoO]/.test(text)) return "integer";
    return Number.isInteger(value) && !/[.eE]/.test(text) ? "integer" : "number";
  }
  if (typeof value === "string" || typeof value === "boolean") return typeof value;
  if (Array.isArray(value)) return "array";
  if (typeof value === "object" && value !== null) return "object";
  return undefined;
}

function property(field: ParamField, description: string | undefined): SchemaObject {
  const prop: SchemaObject = {};
  if (field.defaultSource !== undefined) {
    const literal = parseLiteral(field.defaultSource);
    if (literal.ok && (typeof literal.value !== "number" || Number.isFinite(literal.value))) {
      const type = typeOf(literal.value, field.defaultSource);
      if (type !== undefined) prop.type = type;
      prop.default = literal.value;
    }
  }
  if (description) prop.description = description;
  return prop;
}

export function inputSchemaFromParams(params: Param[], descriptions: Record<string, string>): SchemaObject {
  const first = params[0];
  const fields: ParamField[] = first?.kind === "object" ? first.fields : params.flatMap((p) => (p.kind === "name" ? [p] : []));
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const field of fields) {
    properties[field.name] = property(field, Object.hasOwn(descriptions, field.name) ? descriptions[field.name] : undefined);
    if (field.defaultSource === undefined) required.push(field.name);
  }
  return required.length ? { type: "object", properties, required } : { type: "object", properties };
}
