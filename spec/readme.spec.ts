// Every ```ts block of README.md type-checks under `strict`, against the library's own
// source, as a user's module importing "hubmcp". Names a snippet uses without defining
// (a `server` made in an earlier block, sample data) are declared once, globally.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROOT, tempDir } from "./helpers/launcher-fixtures.ts";

const GLOBALS = `import type { McpServer } from "hubmcp";
declare global {
  const server: McpServer;
  const pngBytes: Uint8Array;
  function step(): Promise<void>;
}
export {};
`;

export function tsBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const fence = /^```ts\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split("\n").length, code: m[1]! });
  }
  return blocks;
}

test("every TypeScript block of the README type-checks under strict", { timeout: 120_000 }, (t) => {
  const blocks = tsBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  assert.ok(blocks.length >= 4, "the README has its TypeScript examples");
  const dir = tempDir(t);
  writeFileSync(join(dir, "globals.d.mts"), GLOBALS);
  const files = blocks.map((block, i) => {
    const file = join(dir, `block-${i}.mts`);
    // Each block is a module of its own, as an app file is.
    writeFileSync(file, `${block.code}\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram([join(dir, "globals.d.mts"), ...files], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules", "@types")],
    baseUrl: ROOT,
    paths: { hubmcp: ["lib/index.ts"], "hubmcp/gateway": ["lib/gateway/index.ts"] },
  });
  // Only the blocks are checked; the library is read for its types, not checked again here.
  const problems = files
    .flatMap((file) => {
      const source = program.getSourceFile(file)!;
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    })
    .map((d) => {
      const index = files.indexOf(d.file!.fileName);
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `README.md:${blocks[index]!.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    });
  assert.deepEqual(problems, []);
});

test("the README installs only from a clone, a copied folder or a tarball, never from a registry", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  // hubmcp is not published: these would 404, or run whatever a stranger publishes under the name.
  const fetched = readme.match(/--package[= ]hubmcp|npm (?:install|i) (?:-g )?hubmcp\b|npx -y/g) ?? [];
  assert.deepEqual(fetched, []);
  const configs = [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const commands = configs.flatMap((c) => [...c.matchAll(/"command":\s*"([^"]*)"/g)].map((m) => m[1]!));
  assert.ok(commands.length >= 4, "the desktop configs are found");
  assert.deepEqual(
    commands.filter((c) => c === "npx"),
    [],
    "desktop hosts start in any folder, where npx would fetch from the registry",
  );
  // The first lines stay the two commands a newcomer types.
  const first = /^```sh\n([\s\S]*?)^```$/m.exec(readme)![1]!.split("\n");
  assert.match(first[0]!, /^npm install && npx start_mcp --app fixtures\/demo\/app\.ts\s+#/);
  assert.match(first[1]!, /^npm test\s+#/);
});

test("the README shows every hub_gateway command", async () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const { USAGE } = await import("../lib/gateway/cli/io.ts");
  const commands = [...USAGE.matchAll(/hub_gateway ((?:init|user \w+|token \w+))/g)].map((m) => m[1]!);
  assert.equal(commands.length, 9, "init, five user and three token commands");
  assert.deepEqual(
    commands.filter((command) => !readme.includes(`hub_gateway ${command}`)),
    [],
  );
});
