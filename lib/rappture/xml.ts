// The XML that Rappture tools speak (tool.xml, driver and run files), read with no
// dependency. It takes what Rappture writes: a declaration, comments, CDATA, processing
// instructions, elements with attributes, text and the five named entities with numeric
// character references. It refuses what only an attack needs: a DOCTYPE (so no DTD, no
// external entity, no entity expansion), any other named entity, nesting deeper than
// `maxDepth`, more than `maxElements` elements and a text larger than `maxBytes`. Every
// refusal is one XmlError naming the line and what is wrong, never the text itself.

export interface XmlElement {
  readonly name: string;
  /** Attributes in a prototype-free record: a file cannot name `__proto__` into an object. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The text directly inside this element (CDATA included), pieces joined, not trimmed. */
  text: string;
  /** 1-based line of the start tag, for messages about this element. */
  readonly line: number;
}

export interface XmlLimits {
  maxBytes?: number;
  maxDepth?: number;
  maxElements?: number;
}

export const XML_LIMITS: Required<XmlLimits> = { maxBytes: 16 * 1024 * 1024, maxDepth: 64, maxElements: 200_000 };

export class XmlError extends Error {
  readonly code = "HUBMCP_XML_INVALID";
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-\w.:]*/y;
const SPACE = /[ \t\r\n]*/y;
const ATTRIBUTE = /([A-Za-z_:][-\w.:]*)[ \t\r\n]*=[ \t\r\n]*(?:"([^"<]*)"|'([^'<]*)')/y;

export function parseXml(source: string, limits: XmlLimits = {}): XmlElement {
  const { maxBytes, maxDepth, maxElements } = { ...XML_LIMITS, ...limits };
  if (source.length > maxBytes) throw new XmlError(1, `the file is larger than ${maxBytes} bytes`);
  let at = 0;
  let line = 1;
  let count = 0;
  const fail = (problem: string): never => {
    throw new XmlError(line, problem);
  };
  /** Moves to `to`, counting the lines passed. */
  const advance = (to: number): void => {
    for (let i = at; i < to; i++) if (source.charCodeAt(i) === 10) line++;
    at = to;
  };
  const skipTo = (marker: string, what: string): void => {
    const end = source.indexOf(marker, at);
    if (end < 0) fail(`${what} is not closed`);
    advance(end + marker.length);
  };
  /** Text with its references resolved; a bad one is reported on its own line, `raw` starting at `at`. */
  const decode = (raw: string): string =>
    raw.indexOf("&") < 0
      ? raw
      : raw.replace(/&([^;&\s]{0,10});?/g, (whole, ref: string, offset: number) => {
          const problemAt = (problem: string): never => {
            for (let i = 0; i < offset; i++) if (raw.charCodeAt(i) === 10) line++;
            return fail(problem);
          };
          if (!whole.endsWith(";")) return problemAt("an '&' that starts no entity (write &amp;)");
          if (ref.startsWith("#")) {
            const code = ref[1] === "x" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
            if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
              problemAt("a character reference names no character");
            return String.fromCodePoint(code);
          }
          if (!Object.hasOwn(NAMED, ref)) problemAt("an entity other than lt, gt, amp, quot, apos (no DTD entities are read)");
          return NAMED[ref]!;
        });
  const match = (pattern: RegExp): RegExpExecArray | null => {
    pattern.lastIndex = at;
    return pattern.exec(source);
  };
  const skipSpace = (): void => advance(match(SPACE)![0].length + at);
  /** Comments, processing instructions and whitespace between elements outside the root. */
  const skipMisc = (): void => {
    for (;;) {
      skipSpace();
      if (source.startsWith("<!--", at)) skipTo("-->", "a comment");
      else if (source.startsWith("<?", at)) skipTo("?>", "a processing instruction");
      else if (source.startsWith("<!DOCTYPE", at) || source.startsWith("<!doctype", at)) fail("a DOCTYPE (DTDs and their entities are refused)");
      else return;
    }
  };
  const element = (depth: number): XmlElement => {
    if (depth > maxDepth) fail(`elements nested deeper than ${maxDepth}`);
    if (++count > maxElements) fail(`more than ${maxElements} elements`);
    const startLine = line;
    advance(at + 1);
    const name = match(NAME)?.[0] ?? fail("a tag without a name");
    advance(at + name.length);
    const attributes: Record<string, string> = Object.create(null);
    for (;;) {
      skipSpace();
      if (source.startsWith("/>", at)) {
        advance(at + 2);
        return { name, attributes, children: [], text: "", line: startLine };
      }
      if (source[at] === ">") break;
      const attribute = match(ATTRIBUTE) ?? fail(`a malformed attribute in <${name}>`);
      const key = attribute[1]!;
      if (Object.hasOwn(attributes, key)) fail(`attribute ${key} given twice in <${name}>`);
      attributes[key] = decode(attribute[2] ?? attribute[3] ?? "");
      advance(at + attribute[0].length);
    }
    advance(at + 1);
    const node: XmlElement = { name, attributes, children: [], text: "", line: startLine };
    for (;;) {
      const next = source.indexOf("<", at);
      if (next < 0) fail(`<${name}> is not closed`);
      if (next > at) {
        const text = source.slice(at, next);
        node.text += decode(text);
        advance(next);
      }
      if (source.startsWith("</", at)) {
        advance(at + 2);
        const closing = match(NAME)?.[0];
        if (closing !== name) fail(`</${closing ?? ""}> closes <${name}>`);
        advance(at + name.length);
        skipSpace();
        if (source[at] !== ">") fail(`a malformed end tag </${name}>`);
        advance(at + 1);
        return node;
      }
      if (source.startsWith("<![CDATA[", at)) {
        const end = source.indexOf("]]>", at);
        if (end < 0) fail("a CDATA section is not closed");
        node.text += source.slice(at + 9, end);
        advance(end + 3);
      } else if (source.startsWith("<!--", at)) skipTo("-->", "a comment");
      else if (source.startsWith("<?", at)) skipTo("?>", "a processing instruction");
      else if (source.startsWith("<!", at)) fail("a declaration inside an element (DTDs are refused)");
      else node.children.push(element(depth + 1));
    }
  };
  if (source.charCodeAt(0) === 0xfeff) at = 1;
  skipMisc();
  if (source[at] !== "<") fail("no root element");
  const root = element(1);
  skipMisc();
  if (at < source.length) fail("text after the root element");
  return root;
}

/** The first child named `name`, or undefined. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

/** The trimmed text at a dotted path of child names (`about.label`), or undefined. */
export function textAt(element: XmlElement, path: string): string | undefined {
  let at: XmlElement | undefined = element;
  for (const step of path.split(".")) at = at && child(at, step);
  return at?.text.trim();
}

const escapeText = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, "&quot;");

/** XML text for an element tree, as Rappture's own library writes it: two-space indents, text kept as is. */
export function writeXml(root: XmlElement): string {
  const out: string[] = ['<?xml version="1.0"?>\n'];
  const write = (el: XmlElement, indent: string): void => {
    const attributes = Object.keys(el.attributes)
      .map((k) => ` ${k}="${escapeAttribute(el.attributes[k]!)}"`)
      .join("");
    if (el.children.length === 0) {
      out.push(el.text === "" ? `${indent}<${el.name}${attributes}/>\n` : `${indent}<${el.name}${attributes}>${escapeText(el.text)}</${el.name}>\n`);
      return;
    }
    const text = el.text.trim();
    out.push(`${indent}<${el.name}${attributes}>${text === "" ? "" : escapeText(text)}\n`);
    for (const c of el.children) write(c, `${indent}  `);
    out.push(`${indent}</${el.name}>\n`);
  };
  write(root, "");
  return out.join("");
}
