// The driver file a Rappture program reads: the tool.xml itself, with a <current> holding
// the value of each input that takes part (a disabled input gets none), as Rappture's own
// GUI writes it before it runs the tool's command.
import type { RapptureInput } from "./inputs.ts";
import { writeXml, type XmlElement } from "./xml.ts";

function copy(el: XmlElement, into: Map<XmlElement, XmlElement>): XmlElement {
  const made: XmlElement = { name: el.name, attributes: el.attributes, children: [], text: el.text, line: el.line };
  into.set(el, made);
  for (const c of el.children) made.children.push(copy(c, into));
  return made;
}

export function driverXml(run: XmlElement, inputs: readonly RapptureInput[], current: ReadonlyMap<string, string>): string {
  const copies = new Map<XmlElement, XmlElement>();
  const root = copy(run, copies);
  for (const input of inputs) {
    const el = copies.get(input.element);
    const value = current.get(input.path);
    if (!el) continue;
    const kept = el.children.filter((c) => c.name !== "current");
    el.children.length = 0;
    el.children.push(...kept);
    if (value !== undefined) el.children.push({ name: "current", attributes: Object.create(null), children: [], text: value, line: el.line });
  }
  return writeXml(root);
}
