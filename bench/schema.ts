// Schema validation speed: validations per second of compileSchema's validators for the
// demo tools' argument schemas and a 20-property nested object, each beside a
// hand-written check of the same shape measured in the same run (target ≥ 0.4×).
// `node --import tsx bench/schema.ts [--quick]` prints the table on its own.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { compileSchema, type SchemaObject, type ValidationResult } from "../lib/schema/index.ts";

export interface SchemaRow {
  name: string;
  opsPerSec: number;
  baselineOpsPerSec: number;
  ratio: number;
}

type Check = (value: unknown) => ValidationResult;

interface Case {
  name: string;
  schema: SchemaObject;
  samples: unknown[];
  handWritten: Check;
}

const VALID: ValidationResult = { valid: true };
const invalid = (path: string, message: string): ValidationResult => ({ valid: false, errors: [{ path, message }] });
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

const num = (extra: SchemaObject = {}): SchemaObject => ({ type: "number", ...extra });
const str = (extra: SchemaObject = {}): SchemaObject => ({ type: "string", ...extra });

// The argument schemas of fixtures/demo/app.ts.
const addSchema: SchemaObject = {
  type: "object",
  properties: { a: num({ description: "First addend" }), b: num({ description: "Second addend" }) },
  required: ["a", "b"],
};
const projectileSchema: SchemaObject = {
  type: "object",
  properties: {
    speed: num({ minimum: 0 }),
    angle: num({ minimum: 0, maximum: 90 }),
    g: num({ exclusiveMinimum: 0, default: 9.81 }),
  },
  required: ["speed", "angle"],
};
const slowSumSchema: SchemaObject = {
  type: "object",
  properties: { values: str({ default: "1,2,3" }), delay: num({ minimum: 0, maximum: 600, default: 2 }) },
};

/** 20 properties over three levels: scalars, a nested object, an array of objects, enums. */
const nestedSchema: SchemaObject = {
  type: "object",
  properties: {
    id: str({ minLength: 1, maxLength: 64 }),
    title: str(),
    count: { type: "integer", minimum: 0 },
    ratio: num({ minimum: 0, maximum: 1 }),
    enabled: { type: "boolean" },
    mode: { enum: ["fast", "slow", "auto"] },
    tags: { type: "array", items: str(), maxItems: 16 },
    owner: {
      type: "object",
      properties: { name: str(), email: str(), age: { type: "integer", minimum: 0 } },
      required: ["name"],
    },
    grid: {
      type: "object",
      properties: {
        nx: { type: "integer", minimum: 1 },
        ny: { type: "integer", minimum: 1 },
        dx: num({ exclusiveMinimum: 0 }),
        dy: num({ exclusiveMinimum: 0 }),
      },
      required: ["nx", "ny"],
    },
    points: {
      type: "array",
      items: { type: "object", properties: { x: num(), y: num(), label: str() }, required: ["x", "y"] },
    },
  },
  required: ["id", "count", "grid"],
};

function handAdd(v: unknown): ValidationResult {
  if (!isObj(v)) return invalid("", "must be object");
  if (!("a" in v)) return invalid("/a", "is required");
  if (!isNum(v.a)) return invalid("/a", "must be number");
  if (!("b" in v)) return invalid("/b", "is required");
  if (!isNum(v.b)) return invalid("/b", "must be number");
  return VALID;
}

function handProjectile(v: unknown): ValidationResult {
  if (!isObj(v)) return invalid("", "must be object");
  if (!isNum(v.speed)) return invalid("/speed", "must be number");
  if (v.speed < 0) return invalid("/speed", "must be >= 0");
  if (!isNum(v.angle)) return invalid("/angle", "must be number");
  if (v.angle < 0 || v.angle > 90) return invalid("/angle", "out of range");
  if (v.g !== undefined && (!isNum(v.g) || v.g <= 0)) return invalid("/g", "must be > 0");
  return VALID;
}

function handSlowSum(v: unknown): ValidationResult {
  if (!isObj(v)) return invalid("", "must be object");
  if (v.values !== undefined && typeof v.values !== "string") return invalid("/values", "must be string");
  if (v.delay !== undefined && (!isNum(v.delay) || v.delay < 0 || v.delay > 600)) return invalid("/delay", "out of range");
  return VALID;
}

const isInt = (v: unknown, min: number) => Number.isInteger(v) && (v as number) >= min;

function handNested(v: unknown): ValidationResult {
  if (!isObj(v)) return invalid("", "must be object");
  if (typeof v.id !== "string" || v.id.length < 1 || v.id.length > 64) return invalid("/id", "bad id");
  if (v.title !== undefined && typeof v.title !== "string") return invalid("/title", "must be string");
  if (!isInt(v.count, 0)) return invalid("/count", "must be integer >= 0");
  if (v.ratio !== undefined && (!isNum(v.ratio) || v.ratio < 0 || v.ratio > 1)) return invalid("/ratio", "out of range");
  if (v.enabled !== undefined && typeof v.enabled !== "boolean") return invalid("/enabled", "must be boolean");
  if (v.mode !== undefined && v.mode !== "fast" && v.mode !== "slow" && v.mode !== "auto") return invalid("/mode", "bad mode");
  if (v.tags !== undefined) {
    if (!Array.isArray(v.tags) || v.tags.length > 16) return invalid("/tags", "bad tags");
    for (let i = 0; i < v.tags.length; i++) if (typeof v.tags[i] !== "string") return invalid(`/tags/${i}`, "must be string");
  }
  const o = v.owner;
  if (o !== undefined) {
    if (!isObj(o) || typeof o.name !== "string") return invalid("/owner/name", "is required");
    if (o.email !== undefined && typeof o.email !== "string") return invalid("/owner/email", "must be string");
    if (o.age !== undefined && !isInt(o.age, 0)) return invalid("/owner/age", "must be integer >= 0");
  }
  const g = v.grid;
  if (!isObj(g) || !isInt(g.nx, 1) || !isInt(g.ny, 1)) return invalid("/grid", "bad grid");
  if (g.dx !== undefined && (!isNum(g.dx) || g.dx <= 0)) return invalid("/grid/dx", "must be > 0");
  if (g.dy !== undefined && (!isNum(g.dy) || g.dy <= 0)) return invalid("/grid/dy", "must be > 0");
  if (v.points !== undefined) {
    if (!Array.isArray(v.points)) return invalid("/points", "must be array");
    for (let i = 0; i < v.points.length; i++) {
      const p = v.points[i];
      if (!isObj(p) || !isNum(p.x) || !isNum(p.y)) return invalid(`/points/${i}`, "bad point");
      if (p.label !== undefined && typeof p.label !== "string") return invalid(`/points/${i}/label`, "must be string");
    }
  }
  return VALID;
}

const nestedSample = {
  id: "run-42",
  title: "Heat flow",
  count: 7,
  ratio: 0.25,
  enabled: true,
  mode: "auto",
  tags: ["physics", "demo"],
  owner: { name: "Ada", email: "ada@example.org", age: 36 },
  grid: { nx: 64, ny: 32, dx: 0.1, dy: 0.2 },
  points: [
    { x: 0, y: 1, label: "a" },
    { x: 2.5, y: -1 },
  ],
};

const CASES: Case[] = [
  {
    name: "add/divide arguments",
    schema: addSchema,
    samples: [
      { a: 1, b: 2 },
      { a: -3.5, b: 1e6 },
    ],
    handWritten: handAdd,
  },
  {
    name: "projectile arguments",
    schema: projectileSchema,
    samples: [
      { speed: 20, angle: 45 },
      { speed: 3, angle: 80, g: 1.62 },
    ],
    handWritten: handProjectile,
  },
  { name: "slow_sum arguments", schema: slowSumSchema, samples: [{ values: "1,2,3", delay: 2 }, {}], handWritten: handSlowSum },
  {
    name: "20-property nested object",
    schema: nestedSchema,
    samples: [nestedSample, { ...nestedSample, owner: undefined, points: [] }],
    handWritten: handNested,
  },
];

/** Calls per second of `check` over `samples`, best of `rounds` slices of `sliceMs`. */
function measure(check: Check, samples: unknown[], sliceMs: number): number {
  const n = samples.length;
  let sink = 0;
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < sliceMs) {
    for (let i = 0; i < 2000; i++) if (check(samples[i % n]).valid) sink++;
    calls += 2000;
    now = performance.now();
  }
  if (sink !== calls) throw new Error("a benchmark sample failed validation");
  return (calls * 1000) / (now - start);
}

export async function schemaRows(opts: { quick: boolean }): Promise<SchemaRow[]> {
  const rounds = opts.quick ? 3 : 7;
  const sliceMs = opts.quick ? 40 : 150;
  const rows: SchemaRow[] = [];
  for (const c of CASES) {
    const compiled = compileSchema(c.schema);
    for (const sample of c.samples) {
      if (!compiled(sample).valid || !c.handWritten(sample).valid) throw new Error(`${c.name}: sample is not valid`);
    }
    let ours = 0;
    let theirs = 0;
    // Alternate the two so warm-up and CPU frequency changes hit both alike.
    for (let r = 0; r < rounds; r++) {
      ours = Math.max(ours, measure(compiled, c.samples, sliceMs));
      theirs = Math.max(theirs, measure(c.handWritten, c.samples, sliceMs));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    rows.push({ name: c.name, opsPerSec: ours, baselineOpsPerSec: theirs, ratio: ours / theirs });
  }
  return rows;
}

function table(rows: SchemaRow[]): string {
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const lines = rows.map((r) => [r.name, fmt(r.opsPerSec), fmt(r.baselineOpsPerSec), `${r.ratio.toFixed(2)}×`, r.ratio >= 0.4 ? "ok" : "BELOW 0.4×"]);
  const head = ["schema", "compileSchema ops/s", "hand-written ops/s", "ratio", "target ≥ 0.4×"];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [row(head), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(row)].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await schemaRows({ quick: process.argv.includes("--quick") });
  process.stdout.write(`${table(rows)}\n`);
}
