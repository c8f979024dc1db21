// Module hooks (node:module register) that load an app's `.ts`/`.mts` files through the
// TypeScript compiler's transpileModule. Unlike esbuild (tsx) it keeps comments, so a
// tool's `/** doc */` inside its handler body still reaches Function.prototype.toString.
// Runs on Node's loader thread; `typescript` is located by the launcher and passed in.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** The part of the `typescript` module this file uses. */
export interface TypeScriptApi {
  transpileModule(
    source: string,
    options: { fileName: string; compilerOptions: Record<string, unknown> },
  ): { outputText: string };
  ModuleKind: { ESNext: number };
  ScriptTarget: { ES2022: number };
}

export interface HookData {
  /** File URL of the `typescript` package's entry. */
  typescript: string;
  /** Files under this URL (hubmcp's own source) go to the next loader first (tsx: faster, no comments needed). */
  delegate?: string | null;
}

interface ResolveContext {
  parentURL?: string | undefined;
  conditions?: readonly string[];
}
interface ResolveResult {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean;
}
interface LoadContext {
  format?: string | null | undefined;
  conditions?: readonly string[];
}
interface LoadResult {
  format: string;
  source?: string | ArrayBuffer | Uint8Array | null | undefined;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<ResolveResult>;
type NextLoad = (url: string, context?: LoadContext) => Promise<LoadResult>;

const TS_FILE = /\.m?ts$/;

let typescriptUrl: string | null = null;
let typescript: Promise<TypeScriptApi> | null = null;
let delegate: string | null = null;

export function initialize(data: HookData): void {
  typescriptUrl = data.typescript;
  delegate = data.delegate ?? null;
}

// Loaded on first use: compiling nothing should not cost the compiler's load time.
function compiler(): Promise<TypeScriptApi> {
  if (!typescriptUrl) throw new Error("TypeScript hooks used before initialize()");
  return (typescript ??= import(typescriptUrl).then((m: { default?: TypeScriptApi } & TypeScriptApi) => m.default ?? m));
}

export function transpile(ts: TypeScriptApi, source: string, fileName: string): string {
  return ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      // Keeps an app's `import { Type }` harmless: imports used only as types are dropped.
      verbatimModuleSyntax: false,
      isolatedModules: true,
      esModuleInterop: true,
      removeComments: false,
      inlineSourceMap: true,
      inlineSources: true,
    },
  }).outputText;
}

function tsCandidates(specifier: string): string[] {
  if (specifier.endsWith(".js")) return [`${specifier.slice(0, -3)}.ts`];
  if (specifier.endsWith(".mjs")) return [`${specifier.slice(0, -4)}.mts`];
  return [];
}

/** A relative `./x.js` imported from a TypeScript file may name `./x.ts` (tsc's convention). */
export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<ResolveResult> {
  try {
    return await next(specifier, context);
  } catch (err) {
    const fromTs = context.parentURL !== undefined && TS_FILE.test(new URL(context.parentURL).pathname);
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (!fromTs || !relative) throw err;
    for (const candidate of tsCandidates(specifier)) {
      try {
        return await next(candidate, context);
      } catch {
        // try the next spelling; the original error is the one worth reporting
      }
    }
    throw err;
  }
}

export async function load(url: string, context: LoadContext, next: NextLoad): Promise<LoadResult> {
  if (!url.startsWith("file:") || !TS_FILE.test(new URL(url).pathname)) return next(url, context);
  if (delegate && url.startsWith(delegate)) {
    try {
      return await next(url, context);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
    }
  }
  const path = fileURLToPath(url);
  const [ts, source] = await Promise.all([compiler(), readFile(path, "utf8")]);
  return { format: "module", source: transpile(ts, source, path), shortCircuit: true };
}
