// scripts/gateway-layout.mjs on a throwaway git copy of the repository: every file of the map
// moved, every relative import still resolving, the renames made, a file it does not know named,
// and a second run finding nothing to do (the lead runs it again after each merge).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../helpers/launcher-fixtures.ts";

const LAYOUT = JSON.parse(readFileSync(join(ROOT, "scripts", "gateway-layout.json"), "utf8")) as {
  moves: Record<string, string>;
  renames: { from: string; to: string; in: string[] }[];
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "JSON-Schema-Test-Suite" ? [] : files(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** A git copy of what the script reads and writes, with no node_modules (so no formatter). */
function copy(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-layout-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const part of ["lib", "spec", "bench", "cli", "scripts", "docs", "fixtures", "README.md"]) {
    cpSync(join(ROOT, part), join(dir, part), { recursive: true, filter: (src) => !/[\\/](\.output|node_modules)$/.test(src) });
  }
  const git = (...args: string[]): void => void execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=spec", "-c", "user.email=spec@localhost", "commit", "-qm", "copy");
  return dir;
}

const run = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(dir, "scripts", "gateway-layout.mjs"), ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/gm;

test("the move leaves every import resolving, renames what it lists, names what it does not know, and runs again as a no-op", (t) => {
  const dir = copy(t);
  writeFileSync(join(dir, "lib", "gateway", "brand-new.ts"), "export const x = 1;\n");

  const first = run(dir);
  assert.equal(first.status, 2, first.stderr);
  assert.match(first.stdout, /not placed: lib\/gateway\/brand-new\.ts/);

  for (const [from, to] of Object.entries(LAYOUT.moves)) {
    assert.equal(existsSync(join(dir, "lib", "gateway", from)), false, `${from} moved`);
    if (existsSync(join(ROOT, "lib", "gateway", from))) assert.ok(existsSync(join(dir, "lib", "gateway", to)), `${to} there`);
  }
  const broken: string[] = [];
  for (const file of ["lib", "spec", "bench", "cli"].flatMap((d) => files(join(dir, d)))) {
    // A moved spec still finds its fixtures and the root it names by a relative path.
    for (const m of readFileSync(file, "utf8").matchAll(/["'](\.{1,2}\/(?:\.\.\/)*(?:fixtures\/[^"'\s$]*)?)["']/g)) {
      if (!existsSync(resolve(dirname(file), m[1]!))) broken.push(`${relative(dir, file)}: ${m[1]}`);
    }
    for (const m of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]!;
      const target = resolve(dirname(file), spec);
      // Only what names lib/: specs also hold specifiers of fixtures and of sources they write.
      if (spec.startsWith(".") && target.startsWith(join(dir, "lib")) && !existsSync(target)) broken.push(`${relative(dir, file)}: ${spec}`);
    }
  }
  assert.deepEqual(broken, []);
  for (const { from, in: scope } of LAYOUT.renames) {
    const places = scope.filter((p) => p.endsWith(".ts") || existsSync(join(dir, p)));
    const left = places
      .flatMap((p) => (p.endsWith(".ts") ? [join(dir, p)] : files(join(dir, p))))
      .filter((f) => new RegExp(`\\b${from}\\b`).test(readFileSync(f, "utf8")));
    assert.deepEqual(
      left.map((f) => relative(dir, f)),
      [],
      `${from} renamed`,
    );
  }

  const again = run(dir);
  assert.match(again.stdout, /^0 files moved, 0 files rewritten$/m);
});

test("--dry-run says what would move and changes nothing", (t) => {
  const dir = copy(t);
  const dry = run(dir, "--dry-run");
  const pending = Object.entries(LAYOUT.moves).filter(([from]) => existsSync(join(dir, "lib", "gateway", from)));
  for (const [from, to] of pending) assert.ok(dry.stdout.includes(`would move lib/gateway/${from} -> lib/gateway/${to}\n`), from);
  assert.match(dry.stdout, /^\d+ files to move, \d+ files to rewrite$/m);
  assert.equal(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" }), "");
});
