// The layout paragraph of docs/contributing.md and the layer table of docs/architecture.md
// name every lib/ folder that the import ranks of spec/imports.spec.ts list, and no folder
// that does not exist, so the maps a newcomer reads cannot drift from the graph the import
// spec enforces.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/launcher-fixtures.ts";

/** The keys of the RANK table, read from the import spec's source (importing it would run its tests). */
function rankedFolders(): string[] {
  const source = readFileSync(join(ROOT, "spec", "imports.spec.ts"), "utf8");
  const table = /const RANK[^=]*=\s*\{([\s\S]*?)\n\};/.exec(source);
  assert.ok(table, "spec/imports.spec.ts has its RANK table");
  const keys = [...table[1]!.matchAll(/^\s*"?([^":\s]+)"?\s*:/gm)].map((m) => m[1]!);
  assert.ok(keys.length >= 10, "the ranks are read");
  return keys.filter((key) => existsSync(join(ROOT, "lib", key)) && statSync(join(ROOT, "lib", key)).isDirectory());
}

/** The text of one `## heading` section of a docs/ page. */
function section(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, "docs", page), "utf8");
  const found = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## )`, "m").exec(text);
  assert.ok(found, `docs/${page} has its ${heading} section`);
  return found[1]!;
}

const MAPS = [
  { page: "contributing.md", heading: "Layout" },
  { page: "architecture.md", heading: "Layers" },
];

for (const { page, heading } of MAPS) {
  test(`docs/${page} (${heading}) names every ranked lib/ folder`, () => {
    const text = section(page, heading);
    const folders = rankedFolders();
    assert.ok(folders.includes("gateway") && folders.includes("util"), "folders, not files, are compared");
    assert.deepEqual(
      folders.filter((folder) => !text.includes(`\`${folder}/\``)),
      [],
    );
  });

  test(`every folder docs/${page} (${heading}) names exists, in lib/ or at the top`, () => {
    const named = [...section(page, heading).matchAll(/`([\w.-]+(?:\/[\w.-]+)*)\/`/g)].map((m) => m[1]!);
    assert.ok(named.length >= 15, "the folders are found");
    const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();
    assert.deepEqual(
      named.filter((folder) => !isDir(join(ROOT, "lib", folder)) && !isDir(join(ROOT, folder))),
      [],
    );
  });
}
