import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { currentValues } from "../../lib/rappture/arguments.ts";
import { examplesOf, readExamples } from "../../lib/rappture/examples.ts";
import { inputSchemaOf } from "../../lib/rappture/inputs.ts";
import { readToolXml } from "../../lib/rappture/tool-xml.ts";

const LOADER = readToolXml(fileURLToPath(new URL("../../fixtures/rappture/loader/tool.xml", import.meta.url)));

test("a loader offers the examples its pattern names, by label (else file name), and loads their values", () => {
  const loaders = examplesOf(LOADER.folder, LOADER.inputs);
  const preset = loaders.get("preset")!;
  assert.deepEqual(preset.names, ["Liquid nitrogen", "hot.xml"], "the malformed example and the non-matching file are left out");
  assert.deepEqual([...preset.values.keys()], ["Liquid nitrogen", "cold.xml", "hot.xml"]);
  const schema = inputSchemaOf(LOADER.inputs, new Map([["preset", preset.names]]));
  assert.deepEqual((schema.properties as Record<string, { enum: string[] }>).preset!.enum, ["Liquid nitrogen", "hot.xml"]);
  const examples = new Map([["preset", preset.values]]);
  const byDefault = currentValues(LOADER.inputs, {}, examples);
  assert.ok(byDefault.ok);
  assert.equal(byDefault.current.get("input.number(t)"), "77K", "the loader's <default> names a file");
  assert.equal(byDefault.current.get("input.string(note)"), "cold");
  const hot = currentValues(LOADER.inputs, { preset: "hot.xml" }, examples);
  assert.ok(hot.ok && hot.current.get("input.number(t)") === "900K" && hot.current.get("input.string(note)") === "none");
});

test("a tool without an examples folder offers none", () => {
  const fermi = readToolXml(fileURLToPath(new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url)));
  assert.deepEqual(readExamples(fermi.folder, LOADER.inputs[0]!), { names: [], values: new Map() });
});
