import assert from "node:assert/strict";
import { test } from "node:test";
import { convert, familiesOf } from "../../lib/rappture/units.ts";

function near(given: number | string, units: string, expected: number): void {
  const c = convert(given, units);
  assert.ok(c.ok, `${given} → ${units}: ${c.ok ? "" : c.problem}`);
  assert.ok(Math.abs(c.value - expected) <= Math.abs(expected) * 1e-9 + 1e-12, `${given} → ${units}: ${c.value}, expected ${expected}`);
}

test("temperatures convert by formula, as Rappture does", () => {
  near("77K", "K", 77);
  near("-196C", "K", 77.15);
  near("300K", "C", 26.85);
  near("32F", "C", 0);
  near("212 F", "K", 373.15);
  near("0C", "F", 32);
  near("491.67R", "K", 273.15);
  near("100degC", "K", 373.15);
});

test("every family the issue names converts, with SI prefixes on metric units", () => {
  near("1.5um", "nm", 1500);
  near("2 eV", "meV", 2000);
  near("1eV", "J", 1.602177e-19);
  near("10A", "nm", 1);
  near("1in", "cm", 2.54);
  near("2min", "s", 120);
  near("1h", "ms", 3.6e6);
  near("1kg", "g", 1000);
  near("250mV", "V", 0.25);
  near("3mA", "A", 0.003);
  near("2.4GHz", "MHz", 2400);
  near("1atm", "Pa", 101325);
  near("760torr", "atm", 1);
  near("1bar", "kPa", 100);
  near("1e16/cm3", "/m3", 1e22);
});

test("a plain number is in the declared units; a bare numeric string too", () => {
  near(42, "K", 42);
  near("42", "K", 42);
  near(" -1.5e3 ", "eV", -1500);
});

test("A is angstrom for a length and ampere for a current", () => {
  assert.equal(familiesOf("A").length, 2);
  near("1nm", "A", 10);
  near("1mA", "A", 0.001);
});

test("what cannot convert is a problem that names the units, never a NaN", () => {
  const cases: Array<[number | string, string, RegExp]> = [
    ["5kg", "K", /do not convert to K/],
    ["abc", "K", /not a number with units \(e\.g\. "2K"\)/],
    ["5 K", "", /takes a plain number/],
    ["x", "", /is not a number$/],
    [Number.NaN, "K", /finite/],
    [Number.POSITIVE_INFINITY, "K", /finite/],
    ["1e999K", "K", /finite|number/],
  ];
  for (const [given, units, problem] of cases) {
    const c = convert(given, units);
    assert.equal(c.ok, false, `${given} → ${units}`);
    if (!c.ok) assert.match(c.problem, problem);
  }
});
