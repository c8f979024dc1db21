// Loads the user's app file and finds its server. TypeScript apps load through, in order:
// Node's own type stripping; our comment-keeping hooks (./ts-hooks.ts, needs the
// `typescript` package); tsx, which drops comments; or a message saying what to do.
import { existsSync, statSync } from "node:fs";
import { createRequire, register } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ListenOptions, RunningServer } from "../http/listen.ts";

/** What start_mcp needs from a McpServer (from whichever copy of the library the app used). */
export interface ServerLike {
  listen(options: ListenOptions): Promise<RunningServer>;
  /** Absent on servers built with a hubmcp older than the stdio transport. */
  serveStdio?(): { closed: Promise<void>; close(): Promise<void> };
}

export type AppLoad = { kind: "ok"; server: ServerLike; notes: string[] } | { kind: "error"; message: string };

export type TsStrategy =
  | { kind: "native" }
  /** Our hooks; tsx (when found) still compiles hubmcp's own source files, which need no comments. */
  | { kind: "hooks"; typescript: string; tsx: string | null }
  | { kind: "tsx"; tsx: string }
  | { kind: "none" };

const BRAND = Symbol.for("hubmcp.server");
const EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts"]);

export const TSX_NOTE = "note: loading TypeScript through tsx, which drops comments: tool descriptions from /** doc */ comments are unavailable (install `typescript` to keep them)";

export function isMcpServer(value: unknown): value is ServerLike {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "no prototype"})`;
  return `a ${typeof value}`;
}

/** The exported server: named `server`, or the default export (or its `server`, for CommonJS). */
export function pickServer(mod: Record<string, unknown>, file: string): AppLoad {
  const fallback = mod.default as Record<string, unknown> | undefined;
  const candidates = [mod.server, mod.default, typeof fallback === "object" && fallback !== null ? fallback.server : undefined];
  const server = candidates.find(isMcpServer);
  if (server) return { kind: "ok", server, notes: [] };
  const names = Object.keys(mod).filter((k) => k !== "__esModule");
  const found =
    "server" in mod
      ? `\`server\` is ${describe(mod.server)}`
      : names.length > 0
        ? `exports: ${names.join(", ")}`
        : "no exports";
  return { kind: "error", message: `${file} does not export a McpServer as \`server\` (named or default); found ${found}` };
}

function resolveFrom(base: string, specifier: string): string | null {
  try {
    return createRequire(base).resolve(specifier);
  } catch {
    return null;
  }
}

/** First place a package resolves: the app's folder (the user's project), then hubmcp's own. */
function locate(appFile: string, specifier: string): string | null {
  return resolveFrom(appFile, specifier) ?? resolveFrom(import.meta.url, specifier);
}

function locateTsx(appFile: string): string | null {
  const found = locate(appFile, "tsx/esm/api");
  if (!found) return null;
  // createRequire picks the CommonJS build of the API; the ESM one sits beside it.
  const esm = found.replace(/\.cjs$/, ".mjs");
  return pathToFileURL(existsSync(esm) ? esm : found).href;
}

/** File URLs of the TypeScript compiler and tsx's register API, where installed. */
export function locateTsTools(appFile: string): { typescript: string | null; tsx: string | null } {
  const ts = locate(appFile, "typescript");
  return { typescript: ts ? pathToFileURL(ts).href : null, tsx: locateTsx(appFile) };
}

export function chooseTsStrategy(features: { typescript?: unknown }, tools: { typescript: string | null; tsx: string | null }): TsStrategy {
  if (features.typescript) return { kind: "native" };
  if (tools.typescript) return { kind: "hooks", typescript: tools.typescript, tsx: tools.tsx };
  if (tools.tsx) return { kind: "tsx", tsx: tools.tsx };
  return { kind: "none" };
}

/** hubmcp's own `lib/` folder (source checkout), whose .ts files tsx may compile. */
function ownSourceDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4 && !existsSync(join(dir, "package.json")); i++) dir = dirname(dir);
  return pathToFileURL(join(dir, "lib")).href + "/";
}

async function registerTsx(url: string): Promise<void> {
  const api = (await import(url)) as { register: () => unknown };
  api.register();
}

/** Installs the TypeScript loader chosen; returns a note to print, or an error message. */
export async function prepareTypeScript(strategy: TsStrategy, file: string): Promise<{ note?: string } | { error: string }> {
  switch (strategy.kind) {
    case "native":
      return {};
    case "hooks": {
      if (strategy.tsx) await registerTsx(strategy.tsx);
      const hooks = new URL(`./ts-hooks${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
      register(hooks, { data: { typescript: strategy.typescript, delegate: strategy.tsx ? ownSourceDir() : null } });
      return {};
    }
    case "tsx":
      await registerTsx(strategy.tsx);
      return { note: TSX_NOTE };
    case "none":
      return {
        error:
          `${file} is TypeScript, and this Node cannot load it: install \`typescript\` or \`tsx\` next to it, ` +
          "compile it to JavaScript (npx tsc), or write the app as .mjs",
      };
  }
}

export async function loadApp(file: string, features: { typescript?: unknown } = process.features as { typescript?: unknown }): Promise<AppLoad> {
  const path = resolve(file);
  const ext = extname(path).toLowerCase();
  if (!EXTENSIONS.has(ext)) return { kind: "error", message: `${file}: unsupported app file type (use .js, .mjs, .cjs, .ts or .mts)` };
  if (!existsSync(path) || !statSync(path).isFile()) return { kind: "error", message: `app file not found: ${file}` };
  const notes: string[] = [];
  if (ext === ".ts" || ext === ".mts") {
    const prepared = await prepareTypeScript(chooseTsStrategy(features, locateTsTools(path)), file);
    if ("error" in prepared) return { kind: "error", message: prepared.error };
    if (prepared.note) notes.push(prepared.note);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
    return { kind: "error", message: `${file} failed to load:\n${detail}` };
  }
  const picked = pickServer(mod, file);
  return picked.kind === "ok" ? { ...picked, notes } : picked;
}
