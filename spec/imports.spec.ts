// The package graph runs one way: a folder of lib/ imports only from folders below it, and
// no two files import each other even indirectly. This spec reads every import of lib/
// (type-only ones too: they couple the code as much) and fails on an upward edge or a cycle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
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
  "stdio-server": 10,
  launcher: 11,
  gateway: 11,
  bridge: 11,
};

/**
 * The gateway's own folders, ranked the same way (`gateway` above is all of them). contracts/
 * is the bottom every part is written against; oauth/ and store/ see nothing else of the
 * gateway, so either can be replaced or tested alone.
 */
const GATEWAY_RANK: Record<string, number> = {
  contracts: 0,
  store: 1,
  oauth: 1,
  config: 2,
  identity: 3,
  hosting: 3,
  backends: 4,
  relay: 5,
  "tool-sessions": 6,
  operations: 7,
  audit: 8,
  calls: 9,
  "hub-connector": 10,
  "tool-registry": 10,
  edge: 11,
  admin: 11,
  account: 11,
  assembly: 11.5,
  "server.ts": 12,
  cli: 12,
  "index.ts": 13,
};

/**
 * Where each file of lib/gateway/ belongs: scripts/gateway-layout.json moves the files of the
 * flat layout into the folders above, and until it has run a file is ranked by its place after
 * the move, so this spec holds before the move and after it.
 */
const GATEWAY_MOVES: Record<string, string> = JSON.parse(readFileSync(new URL("../scripts/gateway-layout.json", import.meta.url), "utf8")).moves;

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

const GATEWAY = join(LIB, "gateway");

/** The gateway folder (or top file) a lib/gateway/ file belongs to, after the move; undefined outside the gateway. */
function gatewayUnitOf(file: string): string | undefined {
  if (!file.startsWith(GATEWAY + sep)) return undefined;
  const path = relative(GATEWAY, file).split(sep).join("/");
  return (GATEWAY_MOVES[path] ?? path).split("/")[0]!;
}

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

test("every lib/gateway/ file has a folder with a rank", () => {
  const unranked = [...graph().keys()].filter((file) => {
    const unit = gatewayUnitOf(file);
    return unit !== undefined && GATEWAY_RANK[unit] === undefined;
  });
  assert.deepEqual(
    unranked.map((file) => relative(LIB, file)),
    [],
    "put the file in a folder of GATEWAY_RANK (scripts/gateway-layout.json for one still at the top)",
  );
});

test("imports inside the gateway only run down its folders", () => {
  const upward: string[] = [];
  for (const [file, targets] of graph()) {
    const from = gatewayUnitOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = gatewayUnitOf(target);
      if (to === undefined || to === from) continue;
      if (!(GATEWAY_RANK[to]! < GATEWAY_RANK[from]!)) upward.push(`${relative(LIB, file)} (${from}) -> ${relative(LIB, target)} (${to})`);
    }
  }
  assert.deepEqual(upward, []);
});

// The OAuth server and the record stores meet the rest of the gateway only at the contracts,
// so each can be swapped or tested alone: a lower rank would still let them reach config/.
test("oauth/ and store/ import nothing of the gateway but contracts/", () => {
  const leaks: string[] = [];
  for (const [file, targets] of graph()) {
    const from = gatewayUnitOf(file);
    if (from !== "oauth" && from !== "store") continue;
    for (const target of targets) {
      const to = gatewayUnitOf(target);
      if (to !== undefined && to !== from && to !== "contracts") leaks.push(`${relative(LIB, file)} -> ${relative(LIB, target)}`);
    }
  }
  assert.deepEqual(leaks, []);
});

test("the gateway's layout map moves files into ranked folders only", () => {
  const bad = Object.entries(GATEWAY_MOVES).filter(([, to]) => GATEWAY_RANK[to.split("/")[0]!] === undefined || !to.includes("/"));
  assert.deepEqual(bad, []);
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
