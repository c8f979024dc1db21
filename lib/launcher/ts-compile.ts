// One TypeScript file to JavaScript for start_mcp: comments kept (a tool's `/** doc */`
// must reach Function.prototype.toString), module specifiers rewritten by the caller,
// and every function with typed parameters tagged with their JSON Schema (see
// registry/param-types.ts), since the types themselves are erased. The edits shift columns
// and the emitter moves lines, so positions come back to the user's file two ways: syntax
// errors are read from the unedited source, and the inline source map names the source's
// own URL, so stack traces (with source maps enabled) point into the user's file.
import type TS from "typescript";
import { typedFunctions } from "./ts-types.ts";

type Ts = typeof TS;

const TAG = "__hubmcpTyped";
const HELPER = `const ${TAG} = (f, t) => Object.defineProperty(f, Symbol.for("hubmcp.paramTypes"), { value: t }); `;

export interface CompiledFile {
  code: string;
  /** `name: Type` of parameters whose type has no JSON Schema equivalent, with their line. */
  unexpressible: string[];
  /** Syntax errors, as `file:line:col message`. */
  errors: string[];
}

/** Rewrites one module specifier of `file`; undefined keeps it. */
export type SpecifierMap = (specifier: string) => string | undefined;

interface Edit {
  pos: number;
  text: string;
  /** Among edits at one position, lower goes first. */
  order: number;
  replaceEnd?: number;
}

function specifierEdits(ts: Ts, file: TS.SourceFile, map: SpecifierMap): Edit[] {
  const edits: Edit[] = [];
  const visit = (node: TS.Node): void => {
    let literal: TS.Expression | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) literal = node.moduleSpecifier;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) literal = node.arguments[0];
    if (literal && ts.isStringLiteralLike(literal)) {
      const rewritten = map(literal.text);
      if (rewritten !== undefined) edits.push({ pos: literal.getStart(file), replaceEnd: literal.end, text: JSON.stringify(rewritten), order: 0 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return edits;
}

/** Where a function declaration's tag goes: the top of its block, where the declaration is already hoisted. */
function blockStart(ts: Ts, fn: TS.FunctionDeclaration, file: TS.SourceFile, top: number): number {
  const parent = fn.parent;
  if (ts.isSourceFile(parent)) return top;
  if (ts.isBlock(parent) || ts.isModuleBlock(parent)) return parent.getStart(file) + 1;
  return -1;
}

function tagEdits(ts: Ts, file: TS.SourceFile, top: number): { edits: Edit[]; unexpressible: string[] } {
  const edits: Edit[] = [];
  const unexpressible: string[] = [];
  for (const typed of typedFunctions(ts, file)) {
    const fn = typed.node;
    if (!fn.body) continue;
    const json = JSON.stringify(typed.types);
    const line = file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1;
    const label = fn.name && ts.isIdentifier(fn.name) ? fn.name.text : "(anonymous)";
    for (const u of typed.unexpressible) unexpressible.push(`line ${line} ${label}(${u})`);
    const parent = fn.parent;
    if (ts.isFunctionDeclaration(fn)) {
      const at = fn.name ? blockStart(ts, fn, file, top) : -1;
      if (at !== -1) edits.push({ pos: at, text: `${TAG}(${fn.name!.text}, ${json}); `, order: 1 });
    } else if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name) && ts.isVariableStatement(parent.parent.parent)) {
      // Tagged after the statement, so `const f = (...) => ...` keeps the name `f`.
      edits.push({ pos: parent.parent.parent.end, text: ` ${TAG}(${parent.name.text}, ${json});`, order: 1 });
    } else {
      const start = fn.getStart(file);
      edits.push({ pos: start, text: `${TAG}(`, order: 2 });
      // Nested functions can end together: the inner one (later start) closes first.
      edits.push({ pos: fn.end, text: `, ${json})`, order: -start });
    }
  }
  return { edits, unexpressible };
}

function apply(source: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => b.pos - a.pos || b.order - a.order);
  let out = source;
  for (const edit of sorted) out = out.slice(0, edit.pos) + edit.text + out.slice(edit.replaceEnd ?? edit.pos);
  return out;
}

function formatDiagnostic(ts: Ts, d: TS.Diagnostic, fileName: string): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
  if (!d.file || d.start === undefined) return `${fileName}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${fileName}:${line + 1}:${character + 1} ${text}`;
}

/** The source map, pointed at the user's file rather than a name beside the compiled copy, inlined. */
function inlineMap(code: string, mapText: string | undefined, sourceUrl: string | undefined): string {
  if (mapText === undefined) return code;
  const map = JSON.parse(mapText) as { sources: string[]; sourceRoot?: string };
  if (sourceUrl !== undefined) {
    map.sources = [sourceUrl];
    delete map.sourceRoot;
  }
  const body = code.replace(/\/\/# sourceMappingURL=\S*\s*$/, "");
  return `${body}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}\n`;
}

/** `sourceUrl`: the file URL of the source, for the source map (stack traces name the user's file). */
export function compileFile(ts: Ts, source: string, fileName: string, map: SpecifierMap, sourceUrl?: string): CompiledFile {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  // A shebang must stay first; the helper goes right after it, on the same line.
  const top = source.startsWith("#!") ? source.indexOf("\n") + 1 || source.length : 0;
  const tags = tagEdits(ts, file, top);
  const edits = [...specifierEdits(ts, file, map), ...tags.edits];
  if (tags.edits.length > 0) edits.push({ pos: top, text: HELPER, order: 0 });
  const compilerOptions: TS.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    // Imports used only as types are dropped, as tsc does.
    verbatimModuleSyntax: false,
    isolatedModules: true,
    esModuleInterop: true,
    removeComments: false,
    sourceMap: true,
    inlineSources: true,
  };
  const result = ts.transpileModule(apply(source, edits), { fileName, reportDiagnostics: true, compilerOptions });
  const failed = (diagnostics: readonly TS.Diagnostic[] | undefined): string[] =>
    (diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => formatDiagnostic(ts, d, fileName));
  let errors = failed(result.diagnostics);
  // Reported again from the source as written: positions in the edited text would mislead.
  if (errors.length > 0) errors = failed(ts.transpileModule(source, { fileName, reportDiagnostics: true, compilerOptions }).diagnostics);
  return { code: inlineMap(result.outputText, result.sourceMapText, sourceUrl), unexpressible: tags.unexpressible, errors };
}
