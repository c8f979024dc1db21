import assert from "node:assert/strict";
import { test } from "node:test";
import { child, parseXml, textAt, writeXml, XmlError } from "../../lib/rappture/xml.ts";

const TOOL = `<?xml version="1.0"?>
<!-- a Rappture tool -->
<run>
  <tool>
    <title>Fermi &amp; Dirac</title>
    <command>python3 @tool/fermi.py @driver</command>
  </tool>
  <input>
    <number id="temperature">
      <about><label>Temperature</label><description><![CDATA[The <ambient> temperature]]></description></about>
      <units>K</units>
      <default>300K</default>
    </number>
    <choice id="model"><option><about><label>A &#x26; B &#65;</label></about><value>ab</value></option></choice>
    <separator/>
  </input>
</run>
`;

test("reads what Rappture writes: declaration, comments, CDATA, attributes, entities, empty tags", () => {
  const run = parseXml(TOOL);
  assert.equal(run.name, "run");
  assert.equal(textAt(run, "tool.title"), "Fermi & Dirac");
  assert.equal(textAt(run, "tool.command"), "python3 @tool/fermi.py @driver");
  const number = child(child(run, "input")!, "number")!;
  assert.equal(number.attributes.id, "temperature");
  assert.equal(number.line, 9);
  assert.equal(textAt(number, "about.description"), "The <ambient> temperature");
  assert.equal(textAt(run, "input.choice.option.about.label"), "A & B A");
  assert.equal(
    child(run, "input")!
      .children.map((c) => c.name)
      .join(","),
    "number,choice,separator",
  );
  assert.equal(textAt(run, "input.nothing.here"), undefined);
});

test("what it writes reads back the same", () => {
  const run = parseXml(TOOL);
  const again = parseXml(writeXml(run));
  assert.equal(textAt(again, "tool.title"), "Fermi & Dirac");
  assert.equal(textAt(again, "input.number.about.description"), "The <ambient> temperature");
  assert.equal(child(child(again, "input")!, "number")!.attributes.id, "temperature");
  assert.match(
    writeXml(parseXml(`<a x="1 &quot;2&quot; &lt;3"><b/><c>x &amp; y</c></a>`)),
    /<a x="1 &quot;2&quot; &lt;3">\n {2}<b\/>\n {2}<c>x &amp; y<\/c>\n<\/a>/,
  );
});

test("a prototype-named attribute is a plain attribute", () => {
  const el = parseXml(`<a __proto__="x" constructor="y"/>`);
  assert.equal(Object.getOwnPropertyDescriptor(el.attributes, "__proto__")?.value, "x");
  assert.equal(Object.getPrototypeOf(el.attributes), null);
});

const refused: Array<[string, string, RegExp]> = [
  ["a DTD", `<?xml version="1.0"?>\n<!DOCTYPE run [<!ENTITY x "y">]>\n<run/>`, /line 2: a DOCTYPE/],
  ["an external entity", `<!DOCTYPE run SYSTEM "file:///etc/passwd"><run>&xxe;</run>`, /DOCTYPE/],
  ["an undeclared entity", `<run>\n&xxe;</run>`, /line 2: an entity other than/],
  ["a bare ampersand", `<run>a & b</run>`, /an '&' that starts no entity/],
  ["a character reference to nothing", `<run>&#xD800;</run>`, /names no character/],
  ["a mismatched end tag", `<run>\n<a></b></run>`, /line 2: <\/b> closes <a>/],
  ["an unclosed element", `<run><a>`, /<a> is not closed/],
  ["an unclosed comment", `<run><!-- x</run>`, /comment is not closed/],
  ["an unclosed CDATA", `<run><![CDATA[x</run>`, /CDATA section is not closed/],
  ["a declaration inside", `<run><!ENTITY x "y"></run>`, /declaration inside an element/],
  ["text after the root", `<run/>junk`, /text after the root/],
  ["no root", `   `, /no root element/],
  ["a nameless tag", `<run>< a/></run>`, /a tag without a name/],
  ["a malformed attribute", `<run a=1/>`, /malformed attribute in <run>/],
  ["a repeated attribute", `<run a="1" a="2"/>`, /attribute a given twice/],
  ["a malformed end tag", `<run></run x>`, /malformed end tag/],
];

for (const [what, source, message] of refused) {
  test(`refuses ${what} with one line naming where`, () => {
    assert.throws(
      () => parseXml(source),
      (err: unknown) => err instanceof XmlError && err.code === "HUBMCP_XML_INVALID" && message.test(err.message) && !err.message.includes("passwd"),
    );
  });
}

test("bounded: depth, element count and size, each refused before the work grows", () => {
  assert.throws(() => parseXml(`${"<a>".repeat(65)}${"</a>".repeat(65)}`), /nested deeper than 64/);
  assert.doesNotThrow(() => parseXml(`${"<a>".repeat(64)}${"</a>".repeat(64)}`));
  assert.throws(() => parseXml(`<r>${"<a/>".repeat(10)}</r>`, { maxElements: 10 }), /more than 10 elements/);
  assert.throws(() => parseXml(`<r>${"x".repeat(100)}</r>`, { maxBytes: 50 }), /larger than 50 bytes/);
});

test("a byte-order mark and surrounding whitespace are fine", () => {
  assert.equal(parseXml("\ufeff\n<run/>\n<!-- end -->\n").name, "run");
});

test("single-quoted and empty attributes, instructions inside, mixed text and children", () => {
  const el = parseXml(`<a x='1' y=""><?pi x?>lead<b/></a>`);
  assert.equal(el.attributes.x, "1");
  assert.equal(el.attributes.y, "");
  assert.equal(el.text, "lead");
  assert.equal(writeXml(el), `<?xml version="1.0"?>\n<a x="1" y="">lead\n  <b/>\n</a>\n`);
  assert.throws(() => parseXml("<a></>"), /<\/> closes <a>/);
});
