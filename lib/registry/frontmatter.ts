// The YAML frontmatter of a SKILL.md, rendered as JSON. The package has no YAML parser, so
// this reads the subset skill authors write (Agent Skills specification): `key: value`
// scalars (plain, single- or double-quoted), `|` and `>` block scalars, a nested mapping
// one level deep (`metadata:`), block lists (`- item`) and flow lists (`[a, b]`). Anything
// else is a clear error rather than a guess, since hosts compare this copy field by field.

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_./-]*)\s*:(?:\s+(.*))?$/;

function scalar(raw: string, where: string): Value {
  const text = raw.replace(/\s+#.*$/, "").trim();
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new TypeError(`SKILL.md frontmatter: bad double-quoted string at ${where}`);
    }
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new TypeError(`SKILL.md frontmatter: bad single-quoted string at ${where}`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text.startsWith("[") && text.endsWith("]")) {
    const inner = text.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((part) => scalar(part, where));
  }
  if (text === "" || text === "~" || text === "null") return null;
  if (text === "true" || text === "false") return text === "true";
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^[{&*!|>%@`]/.test(text)) throw new TypeError(`SKILL.md frontmatter: unsupported YAML at ${where}`);
  return text;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Lines of a block (`|` keeps newlines, `>` folds them) indented deeper than `parent`. */
function block(lines: string[], start: number, parent: number, style: string): [string, number] {
  const body: string[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() !== "" && indentOf(line) <= parent) break;
    body.push(line);
  }
  while (body.length && body.at(-1)!.trim() === "") body.pop();
  const strip = Math.min(...body.filter((l) => l.trim() !== "").map(indentOf));
  const text = body.map((l) => l.slice(Number.isFinite(strip) ? strip : 0));
  const joined = style.startsWith("|") ? text.join("\n") : text.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ");
  return [style.endsWith("-") ? joined : `${joined}\n`, i];
}

/** Parses mapping lines at `indent`; returns the object and the index after it. */
function mapping(lines: string[], start: number, indent: number, depth: number): [Record<string, Value>, number] {
  const out: Record<string, Value> = {};
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      i++;
      continue;
    }
    const at = indentOf(line);
    if (at < indent) break;
    if (at > indent) throw new TypeError(`SKILL.md frontmatter: unexpected indentation on line ${i + 2}`);
    const match = KEY.exec(line.trim());
    if (!match) throw new TypeError(`SKILL.md frontmatter: expected "key: value" on line ${i + 2}`);
    const [, key, rest = ""] = match;
    if (Object.hasOwn(out, key!)) throw new TypeError(`SKILL.md frontmatter: duplicate key ${key} on line ${i + 2}`);
    const value = rest.replace(/\s+#.*$/, "").trim();
    i++;
    if (/^[|>][+-]?$/.test(value)) {
      [out[key!], i] = block(lines, i, at, value);
    } else if (value !== "") {
      out[key!] = scalar(rest, `line ${i + 1}`);
    } else {
      const next = lines.slice(i).find((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
      if (!next || indentOf(next) <= at) out[key!] = null;
      else if (next.trimStart().startsWith("- ") || next.trim() === "-") {
        const items: Value[] = [];
        const itemIndent = indentOf(next);
        while (i < lines.length && (lines[i]!.trim() === "" || (indentOf(lines[i]!) === itemIndent && lines[i]!.trimStart().startsWith("-")))) {
          if (lines[i]!.trim() !== "") items.push(scalar(lines[i]!.trimStart().slice(1), `line ${i + 2}`));
          i++;
        }
        out[key!] = items;
      } else {
        if (depth >= 3) throw new TypeError(`SKILL.md frontmatter: nested too deep on line ${i + 1}`);
        [out[key!], i] = mapping(lines, i, indentOf(next), depth + 1);
      }
    }
  }
  return [out, i];
}

/** The frontmatter of a SKILL.md as a JSON object; throws a TypeError when there is none or it is not the supported YAML. */
export function parseFrontmatter(markdown: string): Record<string, Value> {
  const text = markdown.replace(/^\uFEFF/, "");
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== "---") throw new TypeError("SKILL.md must begin with YAML frontmatter between --- lines");
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end === -1) throw new TypeError("SKILL.md frontmatter has no closing --- line");
  const body = lines.slice(1, end);
  if (body.some((l) => /^\t/.test(l))) throw new TypeError("SKILL.md frontmatter: tabs are not allowed for indentation");
  return mapping(body, 0, 0, 0)[0];
}
