// The restricted schema that form-mode elicitation may send (MCP 2025-11-25,
// client/elicitation "Requested Schema", enums per SEP-1330): an object whose
// properties are all primitives, so any client can render it as a flat form.
import type { JsonSchema, SchemaObject } from "./types.ts";
import { isRecord } from "../util/guards.ts";

type Check = (prop: SchemaObject) => boolean;

const ANNOTATIONS = ["title", "description", "$comment"];
const STRING_FORMATS = new Set(["email", "uri", "date", "date-time"]);

const isObject = isRecord as (v: unknown) => v is SchemaObject;
const isCount = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
const isNum = (v: unknown) => v === undefined || (typeof v === "number" && Number.isFinite(v));
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string");
const onlyKeys = (prop: SchemaObject, allowed: readonly string[]) => Object.keys(prop).every((k) => ANNOTATIONS.includes(k) || allowed.includes(k));
/** `[{const: "a", title: "A"}, ...]`, the titled enum option list. */
const isTitledOptions = (v: unknown) =>
  Array.isArray(v) && v.length > 0 && v.every((o) => isObject(o) && typeof o.const === "string" && typeof o.title === "string" && onlyKeys(o, ["const"]));

const plainString: Check = (p) =>
  onlyKeys(p, ["type", "minLength", "maxLength", "format", "default"]) &&
  isCount(p.minLength) &&
  isCount(p.maxLength) &&
  (p.format === undefined || STRING_FORMATS.has(p.format as string)) &&
  (p.default === undefined || typeof p.default === "string");

const enumString: Check = (p) =>
  onlyKeys(p, ["type", "enum", "enumNames", "default"]) &&
  isStringList(p.enum) &&
  (p.enumNames === undefined || (isStringList(p.enumNames) && p.enumNames.length === p.enum.length)) &&
  (p.default === undefined || p.enum.includes(p.default as string));

const titledString: Check = (p) =>
  onlyKeys(p, ["type", "oneOf", "anyOf", "default"]) &&
  (p.oneOf === undefined) !== (p.anyOf === undefined) &&
  isTitledOptions(p.oneOf ?? p.anyOf) &&
  (p.default === undefined || typeof p.default === "string");

const number: Check = (p) =>
  onlyKeys(p, ["type", "minimum", "maximum", "default"]) &&
  isNum(p.minimum) &&
  isNum(p.maximum) &&
  (p.default === undefined || (typeof p.default === "number" && (p.type === "number" || Number.isInteger(p.default))));

const boolean: Check = (p) => onlyKeys(p, ["type", "default"]) && (p.default === undefined || typeof p.default === "boolean");

/** Multi-select: an array whose items are an untitled or titled string enum. */
const multiSelect: Check = (p) => {
  if (!onlyKeys(p, ["type", "items", "minItems", "maxItems", "default"]) || !isCount(p.minItems) || !isCount(p.maxItems)) return false;
  const items = p.items;
  if (!isObject(items)) return false;
  const untitled = items.type === "string" && onlyKeys(items, ["type", "enum"]) && isStringList(items.enum);
  const titled =
    onlyKeys(items, ["type", "anyOf", "oneOf"]) &&
    (items.type === undefined || items.type === "string") &&
    (items.anyOf === undefined) !== (items.oneOf === undefined) &&
    isTitledOptions(items.anyOf ?? items.oneOf);
  return (untitled || titled) && (p.default === undefined || (Array.isArray(p.default) && p.default.every((x) => typeof x === "string")));
};

function isPrimitiveProperty(prop: unknown): boolean {
  if (!isObject(prop)) return false;
  switch (prop.type) {
    case "string":
      if ("enum" in prop) return enumString(prop);
      if ("oneOf" in prop || "anyOf" in prop) return titledString(prop);
      return plainString(prop);
    case "number":
    case "integer":
      return number(prop);
    case "boolean":
      return boolean(prop);
    case "array":
      return multiSelect(prop);
    case undefined:
      // A titled single-select may leave out `type` (SEP-1330 examples do).
      return ("oneOf" in prop || "anyOf" in prop) && titledString(prop);
    default:
      return false;
  }
}

/**
 * True when `schema` may be sent as an elicitation form: root `type: "object"`, every
 * property a primitive (string, number, integer, boolean, single- or multi-select enum
 * of strings), `required` naming only declared properties, and no nesting.
 */
export function isFlatElicitationSchema(schema: JsonSchema): boolean {
  if (!isObject(schema) || schema.type !== "object") return false;
  if (!onlyKeys(schema, ["type", "properties", "required", "$schema"])) return false;
  const props = schema.properties ?? {};
  if (!isObject(props)) return false;
  if (!Object.values(props).every(isPrimitiveProperty)) return false;
  const required = schema.required;
  if (required === undefined) return true;
  return Array.isArray(required) && required.every((k) => typeof k === "string" && Object.hasOwn(props, k));
}
