// The outputSchema of a Rappture tool from its tool.xml's <output> section, where it declares
// outputs: each declared output under its id, shaped as ./outputs.ts answers it. Nothing is
// required and other ids may appear: a run file says what a run made, and a program may skip
// an output or write one the tool.xml does not declare. Numbers read from a run may be NaN
// (a word that is no number), which JSON writes as null.
import type { SchemaObject } from "../schema/index.ts";
import { child, textAt, type XmlElement } from "./xml.ts";

const NUMBER = { type: ["number", "null"] };
const AXIS = { type: "object", properties: { label: { type: "string" }, units: { type: "string" }, scale: { type: "string" } } };
const ROWS = { type: "array", items: { type: "array", items: NUMBER } };

/** The fields each kind carries beside `kind` and `label`. */
const FIELDS: Record<string, Record<string, unknown>> = {
  curve: { group: { type: "string" }, xaxis: AXIS, yaxis: AXIS, points: ROWS, truncated: { type: "boolean" } },
  histogram: { xaxis: AXIS, yaxis: AXIS, bars: ROWS, truncated: { type: "boolean" } },
  table: { columns: { type: "array", items: AXIS }, rows: ROWS, truncated: { type: "boolean" } },
  number: { value: { type: ["number", "string"] }, units: { type: "string" } },
  integer: { value: { type: ["number", "string"] }, units: { type: "string" } },
  boolean: { value: { type: "boolean" } },
  string: { value: { type: "string" } },
  log: { text: { type: "string" } },
  image: {},
  sequence: { index: AXIS, elements: { type: "array", items: { type: "object", properties: { index: { type: "string" }, outputs: { type: "object" } } } } },
  field: { mesh: { type: "string" }, values: { type: "array", items: NUMBER }, truncated: { type: "boolean" } },
  mesh: { mesh: { type: "string" }, values: { type: "array", items: NUMBER }, truncated: { type: "boolean" } },
  time: { value: { type: "string" } },
};

function outputSchema(el: XmlElement): SchemaObject {
  const label = textAt(el, "about.label");
  const description = textAt(el, "about.description");
  return {
    type: "object",
    ...(label ? { title: label } : {}),
    ...(description ? { description } : {}),
    properties: { kind: { const: el.name }, label: { type: "string" }, ...FIELDS[el.name] },
    required: ["kind"],
  };
}

/** The tool's outputSchema, or undefined when its tool.xml declares no output. */
export function outputSchemaOf(run: XmlElement): SchemaObject | undefined {
  const declared = (child(run, "output")?.children ?? []).filter((el) => el.attributes.id !== undefined && Object.hasOwn(FIELDS, el.name));
  if (declared.length === 0) return undefined;
  return { type: "object", properties: Object.fromEntries(declared.map((el) => [el.attributes.id!, outputSchema(el)])) };
}
