// Values with units, converted as Rappture converts them: a number input declares its units
// (`K`, `eV`, `um`), and a caller may give `"77K"`, `"-196C"`, `"1.5um"` or `"2 eV"`, which
// becomes a number in the declared units. Units convert only within one family (length to
// length); metric units take the SI prefixes. Temperatures are affine (C and F have offsets),
// so they convert through kelvin by formula, not by a factor.

interface Unit {
  /** Multiply a value in this unit by this to get the family's base unit... */
  readonly factor: number;
  /** ...then add this (temperatures only). */
  readonly offset: number;
}

const PREFIXES: Record<string, number> = {
  a: 1e-18,
  f: 1e-15,
  p: 1e-12,
  n: 1e-9,
  u: 1e-6,
  µ: 1e-6,
  m: 1e-3,
  c: 1e-2,
  d: 1e-1,
  da: 1e1,
  h: 1e2,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

type Family = ReadonlyMap<string, Unit>;

/** A family from its base symbols: [symbol, factor to base, metric (takes prefixes)], plus offsets. */
function family(units: ReadonlyArray<readonly [string, number, boolean, number?]>): Family {
  const map = new Map<string, Unit>();
  for (const [symbol, factor, metric, offset = 0] of units) {
    map.set(symbol, { factor, offset });
    if (metric)
      for (const [prefix, scale] of Object.entries(PREFIXES)) if (!map.has(prefix + symbol)) map.set(prefix + symbol, { factor: factor * scale, offset });
  }
  return map;
}

/** Unit families as Rappture defines them (RpUnitsStd), base unit first. */
export const FAMILIES: Readonly<Record<string, Family>> = {
  temperature: family([
    ["K", 1, false],
    ["C", 1, false, 273.15],
    ["F", 5 / 9, false, 459.67 * (5 / 9)],
    ["R", 5 / 9, false],
  ]),
  length: family([
    ["m", 1, true],
    ["A", 1e-10, false],
    ["in", 0.0254, false],
    ["ft", 0.3048, false],
    ["yd", 0.9144, false],
  ]),
  energy: family([
    ["J", 1, true],
    ["eV", 1.602177e-19, true],
  ]),
  time: family([
    ["s", 1, true],
    ["min", 60, false],
    ["h", 3600, false],
    ["d", 86400, false],
  ]),
  mass: family([["g", 1e-3, true]]),
  voltage: family([["V", 1, true]]),
  current: family([["A", 1, true]]),
  frequency: family([["Hz", 1, true]]),
  pressure: family([
    ["Pa", 1, true],
    ["bar", 1e5, true],
    ["atm", 101325, false],
    ["torr", 101325 / 760, false],
    ["mmHg", 101325 / 760, false],
    ["psi", 6894.757, false],
  ]),
  concentration: family([
    ["/m3", 1, false],
    ["/cm3", 1e6, false],
    ["/nm3", 1e27, false],
  ]),
};

/** The families a declared unit belongs to (`A` is both angstrom and ampere). */
export function familiesOf(units: string): Family[] {
  return Object.values(FAMILIES).filter((f) => f.has(units));
}

const VALUE = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$/;

export type Conversion = { ok: true; value: number } | { ok: false; problem: string };

/**
 * A value given as a number (already in `units`) or as text with or without a unit, in
 * `units`. Unknown or foreign units are a problem that names the units that would do.
 */
export function convert(given: number | string, units: string): Conversion {
  if (typeof given === "number") return Number.isFinite(given) ? { ok: true, value: given } : { ok: false, problem: "is not a finite number" };
  const m = VALUE.exec(given);
  if (!m) return { ok: false, problem: units ? `is not a number with units (e.g. "2${units}")` : "is not a number" };
  const value = Number(m[1]);
  if (!Number.isFinite(value)) return { ok: false, problem: "is not a finite number" };
  const from = m[2]!.replace(/^deg(?=[CFKR]$)/, "");
  if (from === "" || from === units) return { ok: true, value };
  for (const f of familiesOf(units)) {
    const source = f.get(from);
    const target = f.get(units)!;
    if (source) {
      const base = value * source.factor + source.offset;
      return { ok: true, value: (base - target.offset) / target.factor };
    }
  }
  return { ok: false, problem: units ? `has units that do not convert to ${units}` : "has units, and this input takes a plain number" };
}
