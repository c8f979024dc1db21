// Registers loaders in this process (Node keeps hooks for the life of a process), so it
// lives apart from app-loader.spec.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { locateTsTools, prepareTypeScript, TSX_NOTE } from "../../lib/launcher/app-loader.ts";
import { tempDir } from "../helpers/launcher-fixtures.ts";

test("the comment-keeping hooks load a .ts file whose handler keeps its doc comment; tsx loading returns its note", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "doc.ts");
  writeFileSync(join(dir, "dep.ts"), "export const two: number = 2;\n");
  writeFileSync(file, `import { two } from "./dep.js";\nexport function twice(x: number): number {\n  /** Doubles x. */\n  return x * two;\n}\n`);
  const tools = locateTsTools(file);
  assert.ok(tools.typescript && tools.tsx);
  assert.deepEqual(await prepareTypeScript({ kind: "hooks", typescript: tools.typescript, tsx: tools.tsx }, file), {});
  const mod = (await import(`${pathToFileURL(file).href}?hooks`)) as { twice: (x: number) => number };
  assert.equal(mod.twice(4), 8);
  assert.match(mod.twice.toString(), /\/\*\* Doubles x\. \*\//);
  assert.deepEqual(await prepareTypeScript({ kind: "tsx", tsx: tools.tsx }, file), { note: TSX_NOTE });
});
