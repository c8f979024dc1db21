// The layout paragraph of docs/contributing.md and the layer tables of docs/architecture.md
// name every lib/ folder, and every folder of lib/gateway/, that the import ranks of
// spec/imports.spec.ts list, and no folder that does not exist, so the maps a newcomer reads
// cannot drift from the graph the import spec enforces. A gateway folder that
// scripts/gateway-layout.json moves files into counts as existing before the move.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/launcher-fixtures.ts";

/** The keys of a rank table, read from the import spec's source (importing it would run its tests). */
function rankKeys(name: string): string[] {
  const source = readFileSync(join(ROOT, "spec", "imports.spec.ts"), "utf8");
  const table = new RegExp(`const ${name}[^=]*=\\s*\\{([\\s\\S]*?)\\n\\};`).exec(source);
  assert.ok(table, `spec/imports.spec.ts has its ${name} table`);
  const keys = [...table[1]!.matchAll(/^\s*"?([^":\s]+)"?\s*:/gm)].map((m) => m[1]!);
  assert.ok(keys.length >= 10, "the ranks are read");
  return keys;
}

const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

function rankedFolders(): string[] {
  return rankKeys("RANK").filter((key) => isDir(join(ROOT, "lib", key)));
}

/** The gateway's ranked folders (its top files, server.ts and index.ts, left out). */
const gatewayFolders = (): string[] => rankKeys("GATEWAY_RANK").filter((key) => !key.endsWith(".ts"));

/** Gateway folders scripts/gateway-layout.json moves files into, as `gateway/<folder>`. */
function plannedFolders(): Set<string> {
  const moves = JSON.parse(readFileSync(join(ROOT, "scripts", "gateway-layout.json"), "utf8")).moves as Record<string, string>;
  return new Set(Object.values(moves).map((to) => `gateway/${to.split("/")[0]}`));
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
    const planned = plannedFolders();
    assert.deepEqual(
      named.filter((folder) => !isDir(join(ROOT, "lib", folder)) && !isDir(join(ROOT, folder)) && !planned.has(folder)),
      [],
    );
  });
}

test("docs/contributing.md (Layout) names every ranked folder of the gateway", () => {
  const text = section("contributing.md", "Layout");
  assert.deepEqual(
    gatewayFolders().filter((folder) => !text.includes(`\`gateway/${folder}/\``)),
    [],
  );
});

test("docs/architecture.md (Inside the gateway) names every ranked gateway folder and no other", () => {
  const text = section("architecture.md", "Inside the gateway");
  const folders = gatewayFolders();
  assert.ok(folders.includes("contracts") && folders.includes("oauth"), "the gateway's ranks are read");
  const named = new Set([...text.matchAll(/`([\w.-]+)\/`/g)].map((m) => m[1]!));
  assert.deepEqual(
    folders.filter((folder) => !named.has(folder)),
    [],
  );
  assert.deepEqual(
    [...named].filter((folder) => folder !== "gateway" && !folders.includes(folder)),
    [],
  );
});
