import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_VALUES, readOutputs } from "../../lib/rappture/outputs.ts";
import { parseXml } from "../../lib/rappture/xml.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString("base64");
const RUN = `<run><output>
  <time>Fri Nov 27 2026</time>
  <curve id="f"><about><label>Fermi-Dirac</label><group>occupancy</group></about>
    <xaxis><label>Energy</label><units>eV</units></xaxis><yaxis><label>f</label><scale>log</scale></yaxis>
    <component><xy>-1 1
      0 0.5
      1 0</xy></component></curve>
  <histogram id="h"><about><label>Counts</label></about><component><xhw>1 5 0.5 2 7 0.5</xhw></component></histogram>
  <table id="t"><about><label>Levels</label></about><column><label>n</label></column><column><label>E</label><units>eV</units></column><data>1 0.1
2 0.4</data></table>
  <number id="Ef"><about><label>Fermi level</label></about><units>eV</units><current>0.25</current></number>
  <integer id="n"><current>7</current></integer>
  <boolean id="ok"><current>yes</current></boolean>
  <string id="s"><about><label>Note</label></about><current>done</current></string>
  <log>line one
line two</log>
  <image id="img"><about><label>Plot</label></about><current>${PNG}</current></image>
  <sequence id="seq"><about><label>Over time</label></about><index><label>t</label><units>s</units></index>
    <element><index>0</index><curve id="c"><component><xy>0 0 1 1</xy></component></curve></element>
    <element><index>1</index><curve id="c"><component><xy>0 1</xy></component></curve></element></sequence>
  <field id="phi"><about><label>Potential</label></about><component><mesh>output.mesh(m)</mesh><values>1 2 3</values></component></field>
  <mesh id="m"><points>0 1 2</points></mesh>
  <drawing id="__proto__"/>
</output></run>`;

test("every output kind becomes data under its id, with a summary line and image and log blocks", () => {
  const out = readOutputs(parseXml(RUN));
  const s = out.structured as Record<string, Record<string, unknown>>;
  assert.deepEqual(s.f, {
    kind: "curve",
    label: "Fermi-Dirac",
    group: "occupancy",
    xaxis: { label: "Energy", units: "eV" },
    yaxis: { label: "f", units: "", scale: "log" },
    points: [
      [-1, 1],
      [0, 0.5],
      [1, 0],
    ],
  });
  assert.deepEqual(s.h!.bars, [
    [1, 5, 0.5],
    [2, 7, 0.5],
  ]);
  assert.deepEqual(s.t, {
    kind: "table",
    label: "Levels",
    columns: [
      { label: "n", units: "" },
      { label: "E", units: "eV" },
    ],
    rows: [
      [1, 0.1],
      [2, 0.4],
    ],
  });
  assert.deepEqual(s.Ef, { kind: "number", label: "Fermi level", value: 0.25, units: "eV" });
  assert.equal(s.n!.value, 7);
  assert.equal(s.ok!.value, true);
  assert.equal(s.s!.value, "done");
  assert.equal(s.log!.text, "line one\nline two");
  assert.deepEqual(out.logs, ["line one\nline two"]);
  assert.deepEqual(out.images, [{ id: "img", data: PNG, mimeType: "image/png" }]);
  assert.equal((s.seq!.elements as unknown[]).length, 2);
  assert.deepEqual(s.seq!.index, { label: "t", units: "s" });
  assert.deepEqual(s.phi, { kind: "field", label: "Potential", mesh: "output.mesh(m)", values: [1, 2, 3] });
  assert.deepEqual(s.m!.values, [0, 1, 2]);
  assert.equal(s.time!.value, "Fri Nov 27 2026");
  assert.equal(Object.getOwnPropertyDescriptor(out.structured, "__proto__")?.value.kind, "drawing");
  assert.deepEqual(out.summary.slice(0, 8), [
    "Fermi-Dirac: a curve of 3 points",
    "Counts: a histogram of 2 bars",
    "Levels: a table of 2 rows",
    "Fermi level: 0.25 eV",
    "n: 7",
    "ok: true",
    "Note: done",
    "log: log",
  ]);
  assert.equal(out.summary.at(-4), "Over time: a sequence of 2 elements");
});

test("data past the bound is cut and marked; an image of unknown type is octet-stream; no <output> is nothing", () => {
  const many = Array.from({ length: MAX_VALUES + 2 }, (_, i) => i % 10).join(" ");
  const out = readOutputs(
    parseXml(
      `<run><output><curve id="c"><component><xy>${many}</xy></component></curve><field id="f"><component><values>${many}</values></component></field><table id="t"><data>${many}</data></table><histogram id="h"><component><xy>${many}</xy></component></histogram><image id="i"><current>aGVsbG8=</current></image><number id="x"><current>n/a</current></number></output></run>`,
    ),
  );
  const s = out.structured as Record<string, Record<string, unknown>>;
  assert.equal(s.c!.truncated, true);
  assert.equal((s.c!.points as unknown[]).length, MAX_VALUES / 2);
  assert.equal(s.f!.truncated, true);
  assert.equal(s.t!.truncated, true);
  assert.equal(s.h!.truncated, true);
  assert.equal(out.images[0]!.mimeType, "application/octet-stream");
  assert.equal(s.x!.value, "n/a");
  assert.deepEqual(Object.keys(readOutputs(parseXml("<run/>")).structured), []);
});
