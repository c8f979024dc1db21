#!/usr/bin/env node
// Moves lib/gateway's files into the folders of scripts/gateway-layout.json and renames the
// identifiers it lists, rewriting every path that named a moved file. Re-runnable: a file
// already moved is skipped and a path already rewritten no longer matches, so it can run again
// after more branches are merged. Nothing but node and git.
//
//   node scripts/gateway-layout.mjs              move, then rename
//   node scripts/gateway-layout.mjs --dry-run    say what would change, change nothing
//   node scripts/gateway-layout.mjs --moves      only the move   (--renames: only the renames)
//
// It prints the files at the gateway's top that the map does not place (added since it was
// written): add each to "moves" and run it again.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GATEWAY = join(ROOT, "lib", "gateway");
const LAYOUT = JSON.parse(readFileSync(join(ROOT, "scripts", "gateway-layout.json"), "utf8"));
/** Folders whose text may name a gateway file, and the kinds of file read there. */
const SCANNED = ["lib", "spec", "bench", "cli", "scripts", "docs"];
const TEXT = /\.(ts|mjs|js|md|json)$/;
const SKIP = new Set(["node_modules", "dist", ".output", "JSON-Schema-Test-Suite"]);
/** This script's own files name old paths on purpose. */
const OWN = new Set(["scripts/gateway-layout.mjs", "scripts/gateway-layout.json"]);

const toPosix = (p) => p.split("\\").join("/");
const rel = (abs) => toPosix(relative(ROOT, abs));

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? walk(path) : TEXT.test(e.name) ? [path] : [];
  });
}

/** Every move still to make, repository-relative: the map's sources, and the specs mirroring them. */
function plannedMoves() {
  const moves = new Map();
  const sources = Object.entries(LAYOUT.moves);
  for (const [from, to] of sources) {
    if (existsSync(join(GATEWAY, from))) moves.set(`lib/gateway/${from}`, `lib/gateway/${to}`);
  }
  // spec/gateway/<dir>/<name>[-more].spec.ts follows lib/gateway/<dir>/<name>.ts (longest name wins).
  for (const spec of walk(join(ROOT, "spec", "gateway"))) {
    const path = toPosix(relative(join(ROOT, "spec", "gateway"), spec));
    if (!path.endsWith(".spec.ts")) continue;
    const stem = path.slice(0, -".spec.ts".length);
    let best;
    for (const [from, to] of sources) {
      const source = from.slice(0, -".ts".length);
      if ((stem === source || stem.startsWith(`${source}-`)) && (!best || source.length > best[0].length)) best = [source, to.slice(0, -".ts".length)];
    }
    if (best) moves.set(`spec/gateway/${path}`, `spec/gateway/${best[1]}${stem.slice(best[0].length)}.spec.ts`);
  }
  return moves;
}

/** The planned moves and those made by an earlier run: a path merged in later still names the old place. */
function pathMap(planned) {
  const map = new Map(planned);
  for (const [from, to] of Object.entries(LAYOUT.moves)) {
    if (!map.has(`lib/gateway/${from}`) && existsSync(join(GATEWAY, to))) map.set(`lib/gateway/${from}`, `lib/gateway/${to}`);
  }
  return map;
}

/** Where a repository-relative file is after the moves. */
const after = (moves, path) => moves.get(path) ?? path;

/** The file a relative specifier written in `file` names, if it exists or is moved (`.js` read as its `.ts` source). */
function target(moves, file, spec) {
  const base = toPosix(relative(ROOT, resolve(ROOT, dirname(file), spec)));
  for (const candidate of spec.endsWith(".js") ? [base, `${base.slice(0, -3)}.ts`] : [base]) {
    if (moves.has(candidate) || existsSync(join(ROOT, candidate))) return candidate;
  }
  return undefined;
}

const RELATIVE = /(?<![\w./-])(\.{1,2}\/(?:[\w.-]+\/)*[\w.-]+?\.(?:ts|js|mjs))(?![\w/-])/g;
const QUOTED = /(["'`])(\.{1,2}\/[^"'`\s$]*)\1/g;
const SEGMENTS = /"gateway"((?:,\s*"[\w.-]+")+)/g;

/** `file`'s text with every path naming a moved file (or written from a moved file) made right. */
function rewritePaths(moves, file, text) {
  const moved = after(moves, file) !== file;
  const byOld = new Map([...moves].map(([from, to]) => [from.replace(/\.ts$/, ""), to.replace(/\.ts$/, "")]));
  // 0. In a moved file, a quoted relative path to anything else (a fixture, a folder, the root).
  let out = !moved
    ? text
    : text.replace(QUOTED, (whole, quote, spec) => {
        if (/\.(ts|js|mjs)$/.test(spec)) return whole;
        const found = toPosix(relative(ROOT, resolve(ROOT, dirname(file), spec)));
        if (!existsSync(join(ROOT, found))) return whole;
        let next = posix.relative(posix.dirname(after(moves, file)), found) || ".";
        if (!next.startsWith(".")) next = `./${next}`;
        if (spec.endsWith("/") && !next.endsWith("/")) next += "/";
        return `${quote}${next}${quote}`;
      });
  // 1. Relative specifiers and mentions (`./forward.ts` in a comment too), from where the file will be.
  out = out.replace(RELATIVE, (whole, spec) => {
    const found = target(moves, file, spec);
    if (!found || (!moved && !moves.has(found))) return whole;
    const ext = spec.endsWith(".js") && found.endsWith(".ts") ? ".js" : "";
    const to = after(moves, found);
    let next = posix.relative(posix.dirname(after(moves, file)), ext ? `${to.slice(0, -3)}${ext}` : to);
    if (!next.startsWith(".")) next = `./${next}`;
    return next;
  });
  // 2. Paths from the repository or lib/ (`lib/gateway/forward.ts`, `gateway/forward.ts`, `dist/lib/gateway/forward.js`, `spec/gateway/forward.spec.ts`).
  out = out.replace(
    /(?<![\w./-])((?:\.\/)?(?:dist\/)?(?:lib\/)?|spec\/)gateway\/((?:[\w.-]+\/)*[\w.-]+?)(\.spec\.ts|\.d\.ts|\.ts|\.js)(?![\w/-])/g,
    (whole, prefix, path, ext) => {
      const key = prefix === "spec/" ? `spec/gateway/${path}` : `lib/gateway/${path}`;
      const to = byOld.get(key);
      if (to === undefined || (prefix === "spec/") !== (ext === ".spec.ts")) return whole;
      return `${prefix}gateway/${to.slice(prefix === "spec/" ? "spec/gateway/".length : "lib/gateway/".length)}${ext}`;
    },
  );
  // 3. Paths joined from segments: join(dir, "lib", "gateway", "audit", "settings.js").
  out = out.replace(SEGMENTS, (whole, list) => {
    const segments = [...list.matchAll(/"([\w.-]+)"/g)].map((m) => m[1]);
    const last = segments.at(-1);
    const ext = /\.(js|ts|d\.ts)$/.exec(last)?.[0];
    if (!ext) return whole;
    const to = byOld.get(`lib/gateway/${segments.join("/").slice(0, -ext.length)}`);
    if (to === undefined) return whole;
    const parts = `${to.slice("lib/gateway/".length)}${ext}`.split("/");
    return `"gateway", ${parts.map((p) => `"${p}"`).join(", ")}`;
  });
  return out;
}

/** Word-boundary renames of identifiers, each only in the files under its folders (repository paths). */
function rename(text, file) {
  if (LAYOUT.renamesSkip.includes(file)) return text;
  let out = text;
  for (const { from, to, in: scope } of LAYOUT.renames) {
    if (!scope.some((place) => file === place || file.startsWith(`${place}/`))) continue;
    out = out.replace(new RegExp(`\\b${from}\\b`, "g"), to);
  }
  return out;
}

/** A rewritten path may make a line too long: the project's formatter, when installed, lays it out again. */
function format(files) {
  const biome = join(ROOT, "node_modules", ".bin", "biome");
  const code = files.filter((f) => /\.(ts|mjs|js|json)$/.test(f));
  if (code.length === 0) return;
  if (!existsSync(biome)) {
    console.log("biome is not installed: run `npx biome check --write .` before committing");
    return;
  }
  execFileSync(biome, ["format", "--write", ...code], { cwd: ROOT, stdio: "ignore" });
}

function unknownAtTop() {
  const known = new Set([...Object.keys(LAYOUT.moves), ...LAYOUT.top]);
  return readdirSync(GATEWAY, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !known.has(e.name))
    .map((e) => `lib/gateway/${e.name}`);
}

export function main(argv) {
  const dry = argv.includes("--dry-run");
  const doMoves = !argv.includes("--renames");
  const doRenames = !argv.includes("--moves");
  const moves = doMoves ? plannedMoves() : new Map();
  const paths = pathMap(moves);
  for (const [from, to] of moves) {
    if (existsSync(join(ROOT, to))) throw new Error(`${to} exists already: move ${from} by hand`);
  }
  const files = SCANNED.flatMap((d) => walk(join(ROOT, d)))
    .concat([join(ROOT, "README.md")])
    .map(rel);
  const written = [];
  for (const file of files) {
    if (OWN.has(file) || !statSync(join(ROOT, file)).isFile()) continue;
    const text = readFileSync(join(ROOT, file), "utf8");
    let next = doMoves ? rewritePaths(paths, file, text) : text;
    if (doRenames) next = rename(next, file);
    if (next === text) continue;
    written.push(after(paths, file));
    if (dry) console.log(`rewrite ${file}`);
    else writeFileSync(join(ROOT, file), next);
  }
  for (const [from, to] of moves) {
    console.log(`${dry ? "would move" : "move"} ${from} -> ${to}`);
    if (dry) continue;
    mkdirSync(dirname(join(ROOT, to)), { recursive: true });
    execFileSync("git", ["mv", from, to], { cwd: ROOT });
  }
  if (!dry) format(written);
  console.log(`${moves.size} files ${dry ? "to move" : "moved"}, ${written.length} files ${dry ? "to rewrite" : "rewritten"}`);
  const unknown = unknownAtTop().filter((f) => !moves.has(f));
  for (const file of unknown) console.log(`not placed: ${file} (add it to scripts/gateway-layout.json "moves")`);
  return unknown.length === 0 ? 0 : 2;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
