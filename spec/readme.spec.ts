// Every ```ts block of README.md and of the docs/ pages type-checks under `strict`, against
// the library's own source, as a user's module importing "hubmcp" (or the official SDK, for
// client snippets). Names a snippet uses without defining (a `server` made in an earlier
// block, sample data) are declared once, globally. The pages' commands and configs are
// checked here too, wherever a page shows them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROOT, tempDir } from "./helpers/launcher-fixtures.ts";
import { fenced, pages } from "./helpers/pages.ts";

const GLOBALS = `import type { McpServer } from "hubmcp";
declare global {
  const server: McpServer;
  const pngBytes: Uint8Array;
  function step(): Promise<void>;
}
export {};
`;

test("every TypeScript block of the README and docs/ type-checks under strict", { timeout: 120_000 }, (t) => {
  const blocks = pages().flatMap((page) => fenced(page.text, "ts").map((block) => ({ ...block, page: page.path })));
  assert.ok(blocks.filter((b) => b.page === "README.md").length >= 1, "the README has its TypeScript example");
  assert.ok(blocks.length >= 8, "the pages have their TypeScript examples");
  const dir = tempDir(t);
  writeFileSync(join(dir, "globals.d.mts"), GLOBALS);
  const files = blocks.map((block, i) => {
    const file = join(dir, `block-${i}.mts`);
    // Each block is a module of its own, as an app file is.
    writeFileSync(file, `${block.code}\nexport {};\n`);
    return file;
  });
  const sdk = join(ROOT, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
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
    // The blocks live in a temporary folder, outside any node_modules: name what they import.
    paths: { hubmcp: ["lib/index.ts"], "hubmcp/gateway": ["lib/gateway/index.ts"], "@modelcontextprotocol/sdk/*": [`${sdk}/*`] },
  });
  // Only the blocks are checked; the library is read for its types, not checked again here.
  const problems = files
    .flatMap((file) => {
      const source = program.getSourceFile(file)!;
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    })
    .map((d) => {
      const block = blocks[files.indexOf(d.file!.fileName)]!;
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${block.page}:${block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    });
  assert.deepEqual(problems, []);
});

test("the pages install only from a clone, a copied folder or a tarball, never from a registry", () => {
  const all = pages();
  const readme = all.find((p) => p.path === "README.md")!.text;
  // hubmcp is not published: these would 404, or run whatever a stranger publishes under the name.
  const fetched = all.flatMap((p) => (p.text.match(/--package[= ]hubmcp|npm (?:install|i) (?:-g )?hubmcp\b|npx -y/g) ?? []).map((m) => `${p.path}: ${m}`));
  assert.deepEqual(fetched, []);
  const configs = all.flatMap((p) => fenced(p.text, "json").map((b) => b.code));
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

test("the README and docs/ show every hub_gateway command", async () => {
  const readme = pages()
    .map((p) => p.text)
    .join("\n");
  const { USAGE } = await import("../lib/gateway/cli/io.ts");
  const commands = [...USAGE.matchAll(/hub_gateway ((?:init|user \w+|token \w+|tool \w+))/g)].map((m) => m[1]!);
  assert.equal(commands.length, 15, "init, five user, three token and six tool commands");
  assert.deepEqual(
    commands.filter((command) => !readme.includes(`hub_gateway ${command}`)),
    [],
  );
});

test("every start_mcp --rappture command and rappture revision the pages show is one start_mcp and the gateway take", async () => {
  const { parseLauncherArgs } = await import("../lib/launcher/args.ts");
  const { parseGatewayConfig } = await import("../lib/gateway/config/gateway-config.ts");
  const { readToolXml } = await import("../lib/rappture/tool-xml.ts");
  const all = pages();
  const lines = all.flatMap((p) => fenced(p.text, "sh").flatMap((b) => b.code.split("\n")));
  const inline = all.flatMap((p) => [...p.text.matchAll(/`((?:npx )?start_mcp --rappture [^`]+)`/g)].map((m) => m[1]!));
  const commands = [...lines.filter((l) => /start_mcp --rappture/.test(l)), ...inline].map((l) => l.replace(/\s+#.*$/, "").trim());
  assert.ok(commands.length >= 3, "the pages show start_mcp --rappture");
  for (const command of commands) {
    const parsed = parseLauncherArgs(command.replace(/^(npx )?start_mcp /, "").split(/\s+/), {});
    assert.equal(parsed.kind, "run", command);
    // The clone's own example is a tool.xml that start_mcp publishes.
    for (const file of parsed.kind === "run" ? parsed.options.rappture.filter((f) => f.startsWith("fixtures/")) : []) readToolXml(join(ROOT, file));
  }
  const configs = all.flatMap((p) => fenced(p.text, "json").map((b) => b.code)).filter((c) => c.includes('"rappture"'));
  assert.ok(configs.length >= 1, "the gateway page shows a rappture revision");
  for (const config of configs) {
    const tools = parseGatewayConfig(JSON.parse(config), ROOT).tools;
    assert.ok(Object.values(tools).some((tool) => tool.revisions.default!.kind === "rappture"));
  }
});

test("every start_mcp --stdio-server command and stdio revision the pages show is one start_mcp and the gateway take", async () => {
  const { parseLauncherArgs } = await import("../lib/launcher/args.ts");
  const { parseGatewayConfig } = await import("../lib/gateway/config/gateway-config.ts");
  const all = pages();
  const lines = all.flatMap((p) => fenced(p.text, "sh").flatMap((b) => b.code.split("\n")));
  const inline = all.flatMap((p) => [...p.text.matchAll(/`((?:npx )?start_mcp --stdio-server [^`]+)`/g)].map((m) => m[1]!));
  const commands = [...lines.filter((l) => /start_mcp --stdio-server/.test(l)), ...inline].map((l) => l.replace(/\s+#.*$/, "").trim());
  assert.ok(commands.length >= 3, "the pages show start_mcp --stdio-server");
  for (const command of commands) {
    const parsed = parseLauncherArgs(command.replace(/^(npx )?start_mcp /, "").split(/\s+/), {});
    assert.equal(parsed.kind, "run", command);
    const server = parsed.kind === "run" ? parsed.options.stdioServer : undefined;
    assert.ok(server && server.length >= 2, command);
    // The clone's own example is a server that is there.
    for (const file of server!.filter((f) => f.startsWith("fixtures/"))) assert.ok(existsSync(join(ROOT, file)), file);
  }
  const configs = all.flatMap((p) => fenced(p.text, "json").map((b) => b.code)).filter((c) => c.includes('"stdio": ['));
  assert.ok(configs.length >= 1, "the gateway page shows a stdio revision");
  for (const config of configs) {
    const tools = parseGatewayConfig(JSON.parse(config), ROOT).tools;
    assert.ok(Object.values(tools).some((tool) => tool.revisions.default!.kind === "stdio"));
  }
});
