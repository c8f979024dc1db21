// A run file's <output> section as data: each output under its id in `structuredContent`,
// curves and histograms as points with their axes, tables as columns and rows, scalars with
// their units, logs as text, images as image blocks, sequences as their elements, fields and
// meshes as their data up to a bound (the whole run stays readable as a resource).
import { child, textAt, type XmlElement } from "./xml.ts";

/** Numbers kept per output before it is cut (the rest is in the run file). */
export const MAX_VALUES = 200_000;

export interface Axis {
  label: string;
  units: string;
  scale?: string;
}

export interface ImageBlock {
  id: string;
  data: string;
  mimeType: string;
}

export interface RunOutputs {
  structured: Record<string, unknown>;
  images: ImageBlock[];
  logs: string[];
  /** One line per output, for clients without structured content. */
  summary: string[];
}

function axis(el: XmlElement | undefined): Axis {
  const scale = el && textAt(el, "scale");
  return { label: (el && textAt(el, "label")) ?? "", units: (el && textAt(el, "units")) ?? "", ...(scale ? { scale } : {}) };
}

/** Whitespace-separated numbers in rows of `width`, at most MAX_VALUES numbers. */
function numbers(text: string, width: number): { rows: number[][]; truncated: boolean } {
  const rows: number[][] = [];
  let row: number[] = [];
  let count = 0;
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    if (++count > MAX_VALUES) return { rows, truncated: true };
    row.push(Number(word));
    if (row.length === width) rows.push(row), (row = []);
  }
  return { rows, truncated: false };
}

function label(el: XmlElement): string {
  return textAt(el, "about.label") || el.attributes.id || el.name;
}

function sniff(base64: string): string {
  const head = Buffer.from(base64.slice(0, 16), "base64");
  if (head[0] === 0x89 && head[1] === 0x50) return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8) return "image/jpeg";
  if (head.subarray(0, 3).toString("latin1") === "GIF") return "image/gif";
  return "application/octet-stream";
}

function points(el: XmlElement, width: number): { points: number[][]; truncated?: true } {
  const all: number[][] = [];
  let truncated = false;
  for (const component of el.children.filter((c) => c.name === "component")) {
    const data = child(component, "xy") ?? child(component, "xhw");
    if (!data) continue;
    const read = numbers(data.text, child(component, "xhw") ? 3 : width);
    all.push(...read.rows);
    truncated ||= read.truncated;
  }
  return truncated ? { points: all, truncated: true } : { points: all };
}

/** One output element as data; images go to `images`, logs to `logs`. */
function outputOf(el: XmlElement, into: RunOutputs): unknown {
  const id = el.attributes.id ?? el.name;
  switch (el.name) {
    case "curve": {
      const group = textAt(el, "about.group");
      return {
        kind: "curve",
        label: label(el),
        ...(group ? { group } : {}),
        xaxis: axis(child(el, "xaxis")),
        yaxis: axis(child(el, "yaxis")),
        ...points(el, 2),
      };
    }
    case "histogram": {
      const { points: bars, truncated } = points(el, 2);
      return {
        kind: "histogram",
        label: label(el),
        xaxis: axis(child(el, "xaxis")),
        yaxis: axis(child(el, "yaxis")),
        bars,
        ...(truncated ? { truncated } : {}),
      };
    }
    case "table": {
      const columns = el.children.filter((c) => c.name === "column").map((c) => ({ label: textAt(c, "label") ?? "", units: textAt(c, "units") ?? "" }));
      const { rows, truncated } = numbers(textAt(el, "data") ?? "", Math.max(columns.length, 1));
      return { kind: "table", label: label(el), columns, rows, ...(truncated ? { truncated } : {}) };
    }
    case "number":
    case "integer": {
      const text = textAt(el, "current") ?? "";
      const units = textAt(el, "units") ?? "";
      const value = Number.parseFloat(text);
      return { kind: el.name, label: label(el), value: Number.isFinite(value) ? value : text, units };
    }
    case "boolean":
      return { kind: "boolean", label: label(el), value: /^(yes|on|true|1)$/i.test(textAt(el, "current") ?? "") };
    case "string":
      return { kind: "string", label: label(el), value: textAt(el, "current") ?? "" };
    case "log": {
      const text = el.text.trim();
      into.logs.push(text);
      return { kind: "log", label: label(el), text };
    }
    case "image": {
      const data = (textAt(el, "current") ?? "").replace(/\s+/g, "");
      into.images.push({ id, data, mimeType: sniff(data) });
      return { kind: "image", label: label(el) };
    }
    case "sequence": {
      const elements = el.children
        .filter((c) => c.name === "element")
        .map((e) => ({
          index: textAt(e, "index") ?? "",
          outputs: Object.fromEntries(
            e.children.filter((c) => c.name !== "index").map((c) => [c.attributes.id ?? c.name, outputOf(c, { ...into, logs: [], images: [] })]),
          ),
        }));
      return { kind: "sequence", label: label(el), index: axis(child(el, "index")), elements };
    }
    case "field":
    case "mesh": {
      const values = el.children.find((c) => c.name === "component")?.children.find((c) => c.name === "values")?.text ?? textAt(el, "points") ?? "";
      const { rows, truncated } = numbers(values, 1);
      const mesh = textAt(el, "component.mesh");
      return { kind: el.name, label: label(el), ...(mesh ? { mesh } : {}), values: rows.map((r) => r[0]), ...(truncated ? { truncated } : {}) };
    }
    case "time":
      return { kind: "time", value: el.text.trim() };
    default:
      return { kind: el.name, label: label(el) };
  }
}

function summaryOf(id: string, value: unknown): string {
  const v = value as {
    kind: string;
    label?: string;
    value?: unknown;
    units?: string;
    points?: unknown[];
    bars?: unknown[];
    rows?: unknown[];
    elements?: unknown[];
  };
  switch (v.kind) {
    case "number":
    case "integer":
    case "boolean":
    case "string":
      return `${v.label}: ${String(v.value)}${v.units ? ` ${v.units}` : ""}`;
    case "curve":
      return `${v.label}: a curve of ${v.points?.length} points`;
    case "histogram":
      return `${v.label}: a histogram of ${v.bars?.length} bars`;
    case "table":
      return `${v.label}: a table of ${v.rows?.length} rows`;
    case "sequence":
      return `${v.label}: a sequence of ${v.elements?.length} elements`;
    default:
      return `${v.label ?? id}: ${v.kind}`;
  }
}

export function readOutputs(run: XmlElement): RunOutputs {
  // No prototype: an output may be called __proto__ and must stay a plain key.
  const into: RunOutputs = { structured: Object.create(null), images: [], logs: [], summary: [] };
  const output = child(run, "output");
  for (const el of output?.children ?? []) {
    const id = el.attributes.id ?? el.name;
    const value = outputOf(el, into);
    into.structured[id] = value;
    if (el.name !== "time") into.summary.push(summaryOf(id, value));
  }
  return into;
}
