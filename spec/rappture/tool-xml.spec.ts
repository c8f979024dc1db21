import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readToolXml, ToolXmlError } from "../../lib/rappture/tool-xml.ts";

const FERMI = fileURLToPath(new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url));

test("name, title, description, version and command come from tool.xml", () => {
  const t = readToolXml(FERMI);
  assert.equal(t.name, "fermi");
  assert.equal(t.title, "Fermi-Dirac Function");
  assert.match(t.description, /^Plots the Fermi-Dirac distribution/);
  assert.equal(t.version, "1.2");
  assert.equal(t.command, "python3 @tool/fermi.py @driver");
  assert.equal(t.inputs.length, 10);
});

test("without an <id> the name is the tool's folder (the one above rappture/); a malformed file is one line", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-toolxml-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "my tool", "rappture"), { recursive: true });
  const file = join(dir, "my tool", "rappture", "tool.xml");
  writeFileSync(file, "<run><tool><command>sh @tool/run.sh @driver</command></tool></run>");
  const read = readToolXml(file);
  assert.equal(read.name, "my_tool");
  assert.equal(read.description, "my_tool");
  assert.equal(read.version, "");
  const cases: Array<[string, RegExp]> = [
    ["<run>\n<tool>", /tool\.xml: line 2: <tool> is not closed$/],
    ["<tool/>", /line 1: the root element is <tool>, not <run>/],
    ["<run><tool/></run>", /no <tool><command>/],
    ['<!DOCTYPE x SYSTEM "file:///etc/passwd"><run/>', /DOCTYPE/],
  ];
  for (const [text, message] of cases) {
    writeFileSync(file, text);
    assert.throws(
      () => readToolXml(file),
      (err: unknown) => err instanceof ToolXmlError && err.code === "HUBMCP_TOOL_XML_INVALID" && message.test(err.message) && !/\n/.test(err.message),
    );
  }
  assert.throws(() => readToolXml(join(dir, "missing.xml")), /missing\.xml: cannot be read \(ENOENT\)/);
});
