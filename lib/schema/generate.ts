// PLACEHOLDER until generation lands: names become properties, parameters without a
// default are required, and nothing is typed.
import type { Param } from "../registry/signature.ts";
import type { SchemaObject } from "./types.ts";

export function inputSchemaFromParams(params: Param[], descriptions: Record<string, string>): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  const fields = params.length > 0 && params[0]!.kind === "object" ? params[0].fields : params.flatMap((p) => (p.kind === "name" ? [p] : []));
  for (const field of fields) {
    const prop: SchemaObject = {};
    if (descriptions[field.name]) prop.description = descriptions[field.name];
    properties[field.name] = prop;
    if (field.defaultSource === undefined) required.push(field.name);
  }
  return required.length ? { type: "object", properties, required } : { type: "object", properties };
}
