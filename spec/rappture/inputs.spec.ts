import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { currentValues } from "../../lib/rappture/arguments.ts";
import { driverXml } from "../../lib/rappture/driver.ts";
import { holds, parseCondition } from "../../lib/rappture/enable.ts";
import { inputSchemaOf, readInputs } from "../../lib/rappture/inputs.ts";
import { child, parseXml, textAt } from "../../lib/rappture/xml.ts";
import { compileSchema } from "../../lib/schema/index.ts";

const TOOL_XML = new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url);
const run = parseXml(readFileSync(TOOL_XML, "utf8"));
const inputs = readInputs(run);

test("every valued input becomes a property; containers flatten, shared ids take their containers' ids", () => {
  assert.deepEqual(
    inputs.map((i) => `${i.name} ${i.kind} ${i.path}`),
    [
      "tabs_physics_temperature number input.group(tabs).group(physics).number(temperature)",
      "Ef number input.group(tabs).group(physics).number(Ef)",
      "model choice input.group(tabs).group(model).choice(model)",
      "plot3d boolean input.group(tabs).group(model).boolean(plot3d)",
      "points integer input.group(tabs).group(model).integer(points)",
      "tabs_model_temperature number input.group(tabs).group(model).number(temperature)",
      "curves multichoice input.multichoice(curves)",
      "title string input.string(title)",
      "element periodicelement input.periodicelement(element)",
      "odd boolean input.boolean(odd)",
    ],
  );
});

test("the schema carries units, ranges in those units, defaults, presets, labels and the Rappture path", () => {
  const schema = inputSchemaOf(inputs);
  const props = schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.tabs_physics_temperature, {
    title: "Ambient temperature",
    description:
      'Temperature of the environment. In K; a string with other units converts (e.g. "300K"). Allowed: 0 to 500 K. Presets: 300K (300K (room temperature)), 77K (77K (liquid nitrogen)).',
    "x-rappture-path": "input.group(tabs).group(physics).number(temperature)",
    type: ["number", "string"],
    minimum: 0,
    maximum: 500,
    default: 300,
    examples: ["300K", "77K"],
  });
  assert.deepEqual(props.model!.enum, ["fd", "mb"]);
  assert.match(String(props.model!.description), /fd = Fermi-Dirac; mb = Boltzmann approximation/);
  assert.deepEqual(props.curves, { ...props.curves, type: "array", items: { type: "string", enum: ["f", "df"] }, default: ["f"] });
  assert.equal(props.plot3d!.default, false);
  assert.equal(props.points!.default, 200);
  assert.match(String(props.points!.description), /Used only when input\.choice\(model\) == "fd"/);
  assert.match(String(props.odd!.description), /here it is always sent/);
  assert.match(String(props.title!.description), /Multi-line/);
  assert.equal((props.element!.enum as string[]).length, 118);
  assert.equal(schema.additionalProperties, false);
  const validate = compileSchema(schema);
  assert.equal(validate({ tabs_physics_temperature: "77K", model: "mb" }).valid, true);
  assert.equal(validate({ model: "xx" }).valid, false);
  assert.equal(validate({ nope: 1 }).valid, false);
});

test("arguments become current values: units converted, defaults filled, enable conditions honoured", () => {
  const r = currentValues(inputs, { tabs_physics_temperature: "-196C", Ef: "250meV", plot3d: true, curves: ["f", "df"] });
  assert.ok(r.ok);
  const c = r.current;
  assert.equal(c.get("input.group(tabs).group(physics).number(temperature)"), "77.14999999999998K");
  assert.equal(c.get("input.group(tabs).group(physics).number(Ef)"), "0.25eV");
  assert.equal(c.get("input.group(tabs).group(model).boolean(plot3d)"), "yes");
  assert.equal(c.get("input.group(tabs).group(model).integer(points)"), "200");
  assert.equal(c.get("input.group(tabs).group(model).number(temperature)"), "300K", "a bare default takes the units");
  assert.equal(c.get("input.multichoice(curves)"), "f,df");
  assert.equal(c.get("input.boolean(odd)"), "on");
  const off = currentValues(inputs, { model: "mb" });
  assert.ok(off.ok);
  assert.equal(off.current.has("input.group(tabs).group(model).integer(points)"), false, "points is not enabled for mb");
  assert.equal(off.current.has("input.group(tabs).group(model).number(temperature)"), false, "plot3d is off");
});

test("out of range, unconvertible and malformed values are refused before anything runs, naming the input and what is allowed", () => {
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ tabs_physics_temperature: "600K" }, /^tabs_physics_temperature is out of range: allowed 0 to 500 K$/],
    [{ tabs_physics_temperature: 1000 }, /out of range/],
    [{ tabs_physics_temperature: "3kg" }, /do not convert to K/],
    [{ tabs_physics_temperature: true }, /must be a number in K or a string with units/],
    [{ points: 10.5 }, /points must be a whole number/],
    [{ points: 5 }, /allowed 10 to 1000$/],
    [{ plot3d: "maybe" }, /plot3d must be true or false/],
    [{ plot3d: "off" }, /^$/],
    [{ model: "zz" }, /model must be one of: fd, mb/],
    [{ curves: ["f", "zz"] }, /curves must be a list of: f, df/],
    [{ element: "Xx" }, /element symbol/],
    [{ title: 5 }, /title must be a string/],
  ];
  for (const [args, problem] of refusals) {
    const r = currentValues(inputs, args);
    if (problem.source === "^$") assert.ok(r.ok);
    else {
      assert.equal(r.ok, false, JSON.stringify(args));
      if (!r.ok) assert.match(r.problem, problem);
    }
  }
});

test("a loader fills an example's values for every input not given", () => {
  const loader = parseXml(
    `<run><input><loader id="examples"><default>cold</default></loader><number id="t"><units>K</units><default>300K</default></number><string id="s"><default>x</default></string></input></run>`,
  );
  const li = readInputs(loader);
  const examples = new Map([
    [
      "examples",
      new Map([
        ["cold", new Map([["input.number(t)", "4K"]])],
        [
          "hot",
          new Map([
            ["input.number(t)", "900K"],
            ["input.nothing", "x"],
          ]),
        ],
      ]),
    ],
  ]);
  assert.deepEqual((inputSchemaOf(li, new Map([["examples", ["cold", "hot"]]])).properties as Record<string, unknown>).examples, {
    title: "examples",
    description: "Loads an example's values for every input not given.",
    "x-rappture-path": "input.loader(examples)",
    type: "string",
    enum: ["cold", "hot"],
  });
  const byDefault = currentValues(li, {}, examples);
  assert.ok(byDefault.ok && byDefault.current.get("input.number(t)") === "4K");
  const hot = currentValues(li, { examples: "hot", s: "y" }, examples);
  assert.ok(hot.ok && hot.current.get("input.number(t)") === "900K" && hot.current.get("input.string(s)") === "y" && !hot.current.has("input.nothing"));
  const given = currentValues(li, { examples: "hot", t: 5 }, examples);
  assert.ok(given.ok && given.current.get("input.number(t)") === "5K");
  const unknown = currentValues(li, { examples: "warm" }, examples);
  assert.ok(!unknown.ok && /one of the tool's examples: cold, hot/.test(unknown.problem));
});

test("the driver file is the tool.xml with a <current> on each input that takes part", () => {
  const r = currentValues(inputs, { model: "mb", tabs_physics_temperature: 77 });
  assert.ok(r.ok);
  const driver = parseXml(driverXml(run, inputs, r.current));
  const physics = child(child(child(driver, "input")!, "group")!, "group")!;
  assert.equal(textAt(physics, "number.current"), "77K");
  assert.equal(textAt(driver, "tool.command"), "python3 @tool/fermi.py @driver");
  const model = child(child(child(driver, "input")!, "group")!, "group")!;
  assert.ok(model);
  const points = child(child(driver, "input")!, "group")!.children[1]!.children.find((c) => c.attributes.id === "points")!;
  assert.equal(child(points, "current"), undefined, "a disabled input is not sent");
  assert.equal(
    child(run, "input")!.children[0]!.children[0]!.children[0]!.children.some((c) => c.name === "current"),
    false,
    "the tool.xml read stays as it was",
  );
});

test("enable conditions: what hubmcp reads, and what it leaves as always enabled", () => {
  const values = new Map([
    ["input.number(n)", "5"],
    ["input.choice(c)", "a"],
    ["input.boolean(b)", "yes"],
  ]);
  const valueAt = (p: string): string | undefined => values.get(p);
  const cases: Array<[string, boolean]> = [
    ["input.number(n) > 3", true],
    ["input.number(n) >= 5 && input.number(n) <= 5", true],
    ["input.number(n) < 5 || input.choice(c) != 'b'", true],
    ["!(input.boolean(b))", false],
    ['input.choice(c) == "a"', true],
    ['input.choice(c) > "b"', false],
    ['input.choice(c) < "b"', true],
    ["no", false],
    ["yes && input.boolean(b)", true],
  ];
  for (const [text, expected] of cases) {
    const c = parseCondition(text);
    assert.ok(c, text);
    assert.equal(holds(c, valueAt), expected, text);
  }
  for (const unreadable of ["$x > 1", "input.number(n) >", "(input.boolean(b)", "input.number(n) == 'open", "foo", "", "input.x(y) input.z(w)", "!"]) {
    assert.equal(parseCondition(unreadable), undefined, unreadable);
  }
});

test("the rarer forms: options without values, single multichoice values, images, unconvertible bounds, no <input>", () => {
  const xml = parseXml(`<run><input>
    <choice id="c"><option><about><label>Only label</label></about></option></choice>
    <multichoice id="m"><option><value>a</value></option><option><value>b</value></option></multichoice>
    <image id="img"><about><label>Picture</label></about></image>
    <number id="n"><min>cold</min><max>10</max><default>5</default></number>
    <integer id="i"><default>x</default></integer>
    <periodicelement id="e"/>
    <string id="s"/>
  </input></run>`);
  const list = readInputs(xml);
  const props = inputSchemaOf(list).properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.c!.enum, ["Only label"]);
  assert.match(String(props.img!.description), /base64/);
  assert.equal(props.n!.minimum, undefined);
  assert.equal(props.n!.maximum, 10);
  assert.equal(props.n!.type, "number");
  assert.equal(props.i!.default, undefined);
  const r = currentValues(list, { m: "b", img: "aGk=", e: "Fe", i: "12", c: "Only label", s: "text" });
  assert.ok(r.ok);
  assert.equal(r.current.get("input.multichoice(m)"), "b");
  assert.equal(r.current.get("input.image(img)"), "aGk=");
  assert.equal(r.current.get("input.periodicelement(e)"), "Fe");
  assert.equal(r.current.get("input.integer(i)"), "12");
  assert.equal(r.current.get("input.number(n)"), "5");
  assert.deepEqual(readInputs(parseXml("<run><tool/></run>")), []);
});
