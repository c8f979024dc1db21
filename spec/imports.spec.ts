// The package graph runs one way: a folder of lib/ imports only from folders below it, and
// no two files import each other even indirectly. This spec reads every import of lib/
// (type-only ones too: they couple the code as much) and fails on an upward edge or a cycle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const LIB = fileURLToPath(new URL("../lib/", import.meta.url));

/** Lower ranks are lower in the graph; a folder may import from its own rank only inside itself. */
const RANK: Record<string, number> = {
  util: 0,
  telemetry: 0.5,
  schema: 1,
  registry: 2,
  session: 3,
  mcp: 4,
  rappture: 4.5,
  tasks: 5,
  slurm: 5,
  docs: 6,
  console: 6,
  http: 7,
  stdio: 7,
  proxy: 8,
  "server-options.ts": 8.5,
  "server.ts": 9,
  "index.ts": 10,
  federation: 10,
  launcher: 11,
  gateway: 11,
  bridge: 11,
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Relative specifiers of static imports, `export ... from` and dynamic `import("...")`. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s[^;'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s*["']([^"']+)["']/gm;
  for (const m of source.matchAll(pattern)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (spec.startsWith(".")) found.push(spec);
  }
  return found;
}

/** The top-level folder of a lib/ path ("mcp"), or the file name for files at the root ("server.ts"). */
const packageOf = (file: string): string => relative(LIB, file).split(/[\\/]/)[0]!;

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of files(LIB)) {
    edges.set(
      file,
      importsOf(readFileSync(file, "utf8")).map((spec) => resolve(dirname(file), spec)),
    );
  }
  return edges;
}

test("every lib/ folder has a rank", () => {
  const unranked = [...new Set([...graph().keys()].map(packageOf))].filter((p) => RANK[p] === undefined);
  assert.deepEqual(unranked, [], "add new folders to RANK at their place in the graph");
});

test("imports only run down the package graph", () => {
  const upward: string[] = [];
  for (const [file, targets] of graph()) {
    const from = packageOf(file);
    for (const target of targets) {
      const to = packageOf(target);
      if (to === from) continue;
      if (!(RANK[to]! < RANK[from]!)) upward.push(`${relative(LIB, file)} -> ${relative(LIB, target)}`);
    }
  }
  assert.deepEqual(upward, []);
});

test("no file imports itself through a cycle", () => {
  const edges = graph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    const s = state.get(file);
    if (s === "done") return;
    if (s === "open") {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(LIB, f)).join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const next of edges.get(file) ?? []) if (edges.has(next)) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of edges.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

// A backend (one kind of revision's way to start a tool server) is seen from the rest of the
// gateway only through the table and contract backends/index.ts exports, so adding or
// changing one touches that folder alone.
test("the gateway sees its backends only through backends/index.ts", () => {
  const backends = join(LIB, "gateway", "backends");
  const inside = (file: string): boolean => dirname(file) === backends;
  const leaks: string[] = [];
  for (const [file, targets] of graph()) {
    if (inside(file)) continue;
    for (const target of targets) if (inside(target) && target !== join(backends, "index.ts")) leaks.push(`${relative(LIB, file)} -> ${relative(LIB, target)}`);
  }
  assert.deepEqual(leaks, []);
});

test("the reader sees every form of import", () => {
  const src = `import a from "./a.ts";\nimport type { B } from "../b.ts";\nexport { c } from "./c.ts";\nconst d = await import("./d.ts");\nimport "./e.ts";\nimport x from "node:fs";`;
  assert.deepEqual(importsOf(src), ["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
});
