// From a caller's arguments to the `<current>` value of each input, as Rappture writes them
// into a driver file: defaults first, then a chosen loader example's values, then what the
// caller gave, converted to the input's units and checked against its range; an input whose
// <enable> condition does not hold is left out. A problem names the input and what is
// allowed, never the value given.
import { holds } from "./enable.ts";
import type { RapptureInput } from "./inputs.ts";
import { PERIODIC_ELEMENTS } from "./periodic-elements.ts";
import { convert } from "./units.ts";

/** A refusal names the input (`input`) and what is allowed (`reason`); `problem` is both in one line. */
export type Currents = { ok: true; current: Map<string, string> } | { ok: false; problem: string; input: string; reason: string };

/** Example values by loader example name, each a map from Rappture path to current text. */
export type Examples = ReadonlyMap<string, ReadonlyMap<string, string>>;

const YES = /^(yes|on|true|1)$/i;

function withUnits(value: number, units: string): string {
  return `${value}${units}`;
}

function range(input: RapptureInput): string {
  return `${input.min ?? "-∞"} to ${input.max ?? "∞"}${input.units ? ` ${input.units}` : ""}`;
}

/** The current text for one given value, or what is wrong with it (after the input's name). */
function currentOf(input: RapptureInput, given: unknown): { text: string } | { problem: string } {
  switch (input.kind) {
    case "number":
    case "integer": {
      if (typeof given !== "number" && typeof given !== "string")
        return { problem: `must be a number${input.units ? ` in ${input.units} or a string with units` : ""}` };
      const c = convert(given, input.units);
      if (!c.ok) return { problem: `${c.problem}` };
      if (input.kind === "integer" && !Number.isInteger(c.value)) return { problem: `must be a whole number` };
      if ((input.min !== undefined && c.value < input.min) || (input.max !== undefined && c.value > input.max))
        return { problem: `is out of range: allowed ${range(input)}` };
      return { text: input.kind === "number" ? withUnits(c.value, input.units) : String(c.value) };
    }
    case "boolean":
      if (typeof given === "boolean") return { text: given ? "yes" : "no" };
      if (typeof given === "string" && (YES.test(given) || /^(no|off|false|0)$/i.test(given))) return { text: YES.test(given) ? "yes" : "no" };
      return { problem: `must be true or false` };
    case "choice":
      if (typeof given === "string" && input.options.some((o) => o.value === given)) return { text: given };
      return { problem: `must be one of: ${input.options.map((o) => o.value).join(", ")}` };
    case "multichoice": {
      const list = Array.isArray(given) ? given : [given];
      if (list.every((v) => typeof v === "string" && input.options.some((o) => o.value === v))) return { text: list.join(",") };
      return { problem: `must be a list of: ${input.options.map((o) => o.value).join(", ")}` };
    }
    case "periodicelement":
      if (typeof given === "string" && PERIODIC_ELEMENTS.includes(given)) return { text: given };
      return { problem: `must be an element symbol (e.g. Si)` };
    default:
      return typeof given === "string" ? { text: given } : { problem: `must be a string` };
  }
}

function defaultText(input: RapptureInput): string {
  if (input.kind === "number" && input.units && /^\s*[-+]?[\d.]+(?:[eE][-+]?\d+)?\s*$/.test(input.default))
    return withUnits(Number(input.default), input.units);
  return input.default;
}

function refused(input: RapptureInput, reason: string): Currents {
  return { ok: false, problem: `${input.name} ${reason}`, input: input.name, reason };
}

export function currentValues(
  inputs: readonly RapptureInput[],
  args: Readonly<Record<string, unknown>>,
  examples: ReadonlyMap<string, Examples> = new Map(),
): Currents {
  const current = new Map<string, string>();
  for (const input of inputs) if (input.kind !== "loader") current.set(input.path, defaultText(input));
  for (const input of inputs) {
    if (input.kind !== "loader") continue;
    const chosen = Object.hasOwn(args, input.name) ? args[input.name] : input.default;
    const example = typeof chosen === "string" ? examples.get(input.name)?.get(chosen) : undefined;
    if (Object.hasOwn(args, input.name) && !example)
      return refused(input, `must be one of the tool's examples: ${[...(examples.get(input.name)?.keys() ?? [])].join(", ")}`);
    for (const [path, value] of example ?? []) if (current.has(path)) current.set(path, value);
  }
  for (const input of inputs) {
    if (input.kind === "loader" || !Object.hasOwn(args, input.name)) continue;
    const result = currentOf(input, args[input.name]);
    if ("problem" in result) return refused(input, result.problem);
    current.set(input.path, result.text);
  }
  // Tools often name an input by its last step alone (`input.choice(model)` for one inside a group).
  const valueAt = (path: string): string | undefined => {
    if (current.has(path)) return current.get(path);
    const last = path.slice(path.lastIndexOf(".") + 1);
    for (const [p, v] of current) if (p.endsWith(`.${last}`)) return v;
    return undefined;
  };
  for (const input of inputs) if (input.enable && !holds(input.enable, valueAt)) current.delete(input.path);
  return { ok: true, current };
}
