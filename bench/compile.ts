// The servers under test run as plain JavaScript, as users run the built package: under
// tsx a process holds a second V8 isolate for the loader (about 40 MB of RSS here), which
// would swamp the memory rows. TypeScript's own transpiler (a dev dependency) turns lib/
// and the bench servers into a throw-away directory; types are checked by `npm test`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { copyConsoleClient } from "../scripts/build.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** What the server child imports; nothing else is transpiled. */
const SOURCES = ["lib", "bench/servers", "bench/server-child.ts"];

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
  verbatimModuleSyntax: true,
  rewriteRelativeImportExtensions: true,
};

function tsFiles(path: string): string[] {
  if (path.endsWith(".ts")) return path.endsWith(".d.ts") ? [] : [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() || e.name.endsWith(".ts") ? tsFiles(join(path, e.name)) : []));
}

export interface CompiledTree {
  /** Absolute path of the compiled form of a source file, e.g. "bench/server-child.ts". */
  path(source: string): string;
  remove(): void;
}

export function compileForBench(): CompiledTree {
  const out = mkdtempSync(join(tmpdir(), "hubmcp-bench-"));
  writeFileSync(join(out, "package.json"), '{"type":"module"}\n');
  // The Postgres store loads its optional driver (`pg`) by name: the tree resolves it from the repo's.
  symlinkSync(join(ROOT, "node_modules"), join(out, "node_modules"), "dir");
  for (const file of SOURCES.flatMap((s) => tsFiles(join(ROOT, s)))) {
    const rel = relative(ROOT, file);
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions: OPTIONS, fileName: rel, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`${rel}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, "\n")}`);
    const target = join(out, rel.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  copyConsoleClient(out);
  return {
    path: (source) => join(out, source.replace(/\.ts$/, ".js")),
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}
