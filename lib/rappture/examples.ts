// A loader's examples: the files its <example> pattern names in the tool's `examples` folder
// (Rappture looks there), each a run file whose inputs carry the <current> values it loads.
// An example that cannot be read is left out, never a reason not to serve the tool.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RapptureInput } from "./inputs.ts";
import { child, parseXml, textAt, type XmlElement } from "./xml.ts";

const MAX_EXAMPLE_BYTES = 4 * 1024 * 1024;

/** Each input's Rappture path with its <current> text, for every input in a run. */
function currentsOf(run: XmlElement): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (el: XmlElement, path: string): void => {
    for (const c of el.children) {
      const id = c.attributes.id;
      const here = `${path}.${c.name}${id ? `(${id})` : ""}`;
      const current = child(c, "current");
      if (current) found.set(here, current.text.trim());
      else if (c.name !== "about") walk(c, here);
    }
  };
  const input = child(run, "input");
  if (input) walk(input, "input");
  return found;
}

/** `*.xml`, `cold-*.xml`: the one wildcard Rappture's loaders use. */
function matcher(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\?]/g, "\\$&").replace(/\*/g, ".*")}$`);
}

export interface LoaderExamples {
  /** What a caller chooses from: each example's label (its file name when it has none). */
  names: string[];
  /** Values by label and by file name (a loader's <default> names the file). */
  values: Map<string, Map<string, string>>;
}

export function readExamples(folder: string, loader: RapptureInput): LoaderExamples {
  const examples: LoaderExamples = { names: [], values: new Map() };
  const dir = join(folder, "examples");
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return examples;
  }
  const patterns = loader.element.children.filter((c) => c.name === "example").map((c) => matcher(c.text.trim()));
  for (const file of files) {
    if (!patterns.some((p) => p.test(file))) continue;
    try {
      const path = join(dir, file);
      if (statSync(path).size > MAX_EXAMPLE_BYTES) continue;
      const run = parseXml(readFileSync(path, "utf8"));
      const name = (textAt(run, "about.label") || file).trim();
      if (examples.values.has(name)) continue;
      const values = currentsOf(run);
      examples.names.push(name);
      examples.values.set(name, values);
      if (!examples.values.has(file)) examples.values.set(file, values);
    } catch {
      // unreadable or malformed: not offered
    }
  }
  return examples;
}

/** Every loader's examples, by the loader's property name. */
export function examplesOf(folder: string, inputs: readonly RapptureInput[]): Map<string, LoaderExamples> {
  return new Map(inputs.filter((i) => i.kind === "loader").map((i) => [i.name, readExamples(folder, i)]));
}
