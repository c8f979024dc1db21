// A tool.xml's <input> section as the inputs a model fills: each input that takes a value
// becomes one property of a flat JSON Schema, named by its id (prefixed by its containers'
// ids only where two inputs share an id, so names stay unique and stable), with the Rappture
// path kept beside it (`x-rappture-path`) so every property traces back to tool.xml.
import type { SchemaObject } from "../schema/index.ts";
import { type Condition, parseCondition } from "./enable.ts";
import { PERIODIC_ELEMENTS } from "./periodic-elements.ts";
import { convert } from "./units.ts";
import { child, textAt, type XmlElement } from "./xml.ts";

export type InputKind = "number" | "integer" | "boolean" | "string" | "choice" | "multichoice" | "loader" | "periodicelement" | "image";

export interface RapptureOption {
  value: string;
  label: string;
}

export interface RapptureInput {
  /** The property name a caller uses. */
  readonly name: string;
  /** `input.group(tabs).number(temperature)`: where the value goes in the driver file. */
  readonly path: string;
  readonly kind: InputKind;
  readonly element: XmlElement;
  readonly label: string;
  readonly units: string;
  readonly min?: number;
  readonly max?: number;
  /** The default as Rappture writes it (`300K`, `yes`, an option's value). */
  readonly default: string;
  readonly options: RapptureOption[];
  readonly enable?: Condition;
  /** The <enable> text when hubmcp cannot read it (the input is then always enabled). */
  readonly unreadableEnable?: string;
}

const VALUED = new Set<string>(["number", "integer", "boolean", "string", "choice", "multichoice", "loader", "periodicelement", "image"]);
const CONTAINERS = new Set(["group", "phase"]);
/** Kinds with no sensible JSON form: the driver keeps their own default (docs say so). */
export const SKIPPED_KINDS = ["note", "separator", "structure", "drawing"] as const;

function optionsOf(el: XmlElement): RapptureOption[] {
  return el.children
    .filter((c) => c.name === "option")
    .map((o) => {
      const label = textAt(o, "about.label") ?? "";
      return { value: textAt(o, "value") || label, label };
    });
}

function bound(el: XmlElement, which: "min" | "max", units: string): number | undefined {
  const text = textAt(el, which);
  if (!text) return undefined;
  const c = convert(text, units);
  return c.ok ? c.value : undefined;
}

/** Every valued input of a tool.xml, in document order, containers flattened. */
export function readInputs(run: XmlElement): RapptureInput[] {
  const found: Array<Omit<RapptureInput, "name"> & { id: string; containers: string[] }> = [];
  const walk = (el: XmlElement, path: string, containers: string[]): void => {
    for (const c of el.children) {
      const id = c.attributes.id ?? "";
      const here = `${path}.${c.name}${id ? `(${id})` : ""}`;
      if (CONTAINERS.has(c.name)) walk(c, here, [...containers, id]);
      else if (VALUED.has(c.name) && id) {
        const units = c.name === "number" ? (textAt(c, "units") ?? "") : "";
        const enableText = textAt(c, "enable");
        const enable = enableText ? parseCondition(enableText) : undefined;
        found.push({
          id,
          containers,
          path: here,
          kind: c.name as InputKind,
          element: c,
          label: textAt(c, "about.label") || id,
          units,
          min: c.name === "number" || c.name === "integer" ? bound(c, "min", units) : undefined,
          max: c.name === "number" || c.name === "integer" ? bound(c, "max", units) : undefined,
          default: textAt(c, "default") ?? "",
          options: c.name === "choice" || c.name === "multichoice" ? optionsOf(c) : [],
          enable,
          unreadableEnable: enableText && !enable ? enableText : undefined,
        });
      }
    }
  };
  const input = child(run, "input");
  if (input) walk(input, "input", []);
  const counts = new Map<string, number>();
  for (const f of found) counts.set(f.id, (counts.get(f.id) ?? 0) + 1);
  return found.map(({ id, containers, ...rest }) => ({
    ...rest,
    name: (counts.get(id)! > 1 ? [...containers.filter(Boolean), id] : [id]).join("_").replace(/[^A-Za-z0-9_-]/g, "_"),
  }));
}

function describe(input: RapptureInput, loaderNames: readonly string[]): string {
  // The label is the property's title; the description starts with the tool's own words, if any.
  const own = textAt(input.element, "about.description");
  const parts = own ? [own] : [];
  if (input.units) parts.push(`In ${input.units}; a string with other units converts (e.g. "${input.default || `1${input.units}`}").`);
  if (input.min !== undefined || input.max !== undefined)
    parts.push(`Allowed: ${input.min ?? "-∞"} to ${input.max ?? "∞"}${input.units ? ` ${input.units}` : ""}.`);
  const presets = input.element.children.filter((c) => c.name === "preset").map((p) => `${textAt(p, "value")} (${textAt(p, "label")})`);
  if (presets.length) parts.push(`Presets: ${presets.join(", ")}.`);
  if (input.options.some((o) => o.label && o.label !== o.value)) parts.push(`Options: ${input.options.map((o) => `${o.value} = ${o.label}`).join("; ")}.`);
  if (input.kind === "loader" && loaderNames.length) parts.push("Loads an example's values for every input not given.");
  if (input.kind === "string" && /x\d/.test(textAt(input.element, "size") ?? "")) parts.push("Multi-line text.");
  if (input.kind === "image") parts.push("An image, base64-encoded.");
  const enable = textAt(input.element, "enable");
  if (enable) parts.push(input.enable ? `Used only when ${enable}.` : `Rappture enables it when ${enable}; here it is always sent.`);
  return parts.join(" ") || input.label;
}

function propertyOf(input: RapptureInput, loaderNames: readonly string[]): SchemaObject {
  const common = { title: input.label, description: describe(input, loaderNames), "x-rappture-path": input.path };
  switch (input.kind) {
    case "number": {
      const d = convert(input.default, input.units);
      const presets = input.element.children.filter((c) => c.name === "preset").map((p) => textAt(p, "value") ?? "");
      return {
        ...common,
        type: input.units ? ["number", "string"] : "number",
        ...(input.min !== undefined && { minimum: input.min }),
        ...(input.max !== undefined && { maximum: input.max }),
        ...(d.ok && input.default && { default: d.value }),
        ...(presets.length && { examples: presets }),
      };
    }
    case "integer":
      return {
        ...common,
        type: "integer",
        ...(input.min !== undefined && { minimum: input.min }),
        ...(input.max !== undefined && { maximum: input.max }),
        ...(/^-?\d+$/.test(input.default) && { default: Number(input.default) }),
      };
    case "boolean":
      return { ...common, type: "boolean", ...(input.default && { default: /^(yes|on|true|1)$/i.test(input.default) }) };
    case "choice":
      return { ...common, type: "string", enum: input.options.map((o) => o.value), ...(input.default && { default: input.default }) };
    case "multichoice":
      return {
        ...common,
        type: "array",
        uniqueItems: true,
        items: { type: "string", enum: input.options.map((o) => o.value) },
        ...(input.default && {
          default: input.default
            .split(",")
            .map((v) => v.trim())
            .filter(Boolean),
        }),
      };
    case "loader":
      return { ...common, type: "string", enum: [...loaderNames] };
    case "periodicelement":
      return { ...common, type: "string", enum: PERIODIC_ELEMENTS, ...(input.default && { default: input.default }) };
    default:
      return { ...common, type: "string", ...(input.default && { default: input.default }) };
  }
}

/** The tool's inputSchema: every input optional (each has a default the driver fills), none extra. */
export function inputSchemaOf(inputs: readonly RapptureInput[], loaderNames: ReadonlyMap<string, readonly string[]> = new Map()): SchemaObject {
  return {
    type: "object",
    properties: Object.fromEntries(inputs.map((i) => [i.name, propertyOf(i, loaderNames.get(i.name) ?? [])])),
    additionalProperties: false,
  };
}
