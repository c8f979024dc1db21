// Loads the user's app file and finds its server. TypeScript apps load through, in order:
// the `typescript` compiler in a child process, cached (./ts-cache.ts: comments kept,
// parameter types become schemas); Node's own type stripping; tsx, which drops
// comments; or a message saying what to do. Every app may import "hubmcp" without
// installing it (./resolve-hooks.ts).
import { existsSync, statSync } from "node:fs";
import * as moduleApi from "node:module";
import { createRequire } from "node:module";
import { extname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ListenOptions, RunningServer } from "../http/listen.ts";
import { initialize as initializeHooks, resolveSync, type ResolveHookData } from "./resolve-hooks.ts";
import { compileApp } from "./ts-cache.ts";
import { describeLoadError } from "./load-errors.ts";
import { outputPath } from "./ts-build.ts";
import { markTypeScriptCompiled } from "../registry/origin.ts";
import { DEFAULT_LOGGER, type Logger } from "../util/logger.ts";

/** What start_mcp needs from a McpServer (from whichever copy of the library the app used). */
export interface ServerLike {
  listen(options: ListenOptions): Promise<RunningServer>;
  /** Absent on servers built with a hubmcp older than the stdio transport. */
  serveStdio?(options?: { output?: NodeJS.WritableStream }): { closed: Promise<void>; close(): Promise<void> };
}

export type AppLoad =
  | {
      kind: "ok";
      server: ServerLike;
      notes: string[];
      /** Parameters of a TypeScript app whose type has no JSON Schema equivalent (they accept anything). */
      unexpressible: string[];
    }
  | { kind: "error"; message: string };

export type TsStrategy =
  /** Compiled by `typescript` in a child process, cached by content. */
  { kind: "compile"; typescript: string } | { kind: "native" } | { kind: "tsx"; tsx: string } | { kind: "none" };

const BRAND = Symbol.for("hubmcp.server");
/** Where the running hubmcp's own code and tools live: frames there are never the user's. */
const OWN_CODE = ((): string[] => {
  const here = fileURLToPath(import.meta.url);
  const root = resolve(here, extname(here) === ".js" ? "../../../.." : "../../..");
  return ["lib", "dist", "node_modules"].map((d) => `${resolve(root, d)}/`);
})();
const EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts"]);

export const TSX_NOTE =
  "note: loading TypeScript through tsx, which drops comments: tool descriptions from /** doc */ comments are unavailable (install `typescript` to keep them)";

export function isMcpServer(value: unknown): value is ServerLike {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Gives the app's server start_mcp's logger, unless the app chose one (a server from an older hubmcp ignores it). */
export function adoptLogger(server: ServerLike, logger: Logger): void {
  const adopt = (server as unknown as Record<symbol, unknown>)[DEFAULT_LOGGER];
  if (typeof adopt === "function") adopt.call(server, logger);
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
  if (server) return { kind: "ok", server, notes: [], unexpressible: [] };
  const names = Object.keys(mod).filter((k) => k !== "__esModule");
  const found = "server" in mod ? `\`server\` is ${describe(mod.server)}` : names.length > 0 ? `exports: ${names.join(", ")}` : "no exports";
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

/** The compiler an installed hubmcp carries (scripts/build.mjs copies it to dist/vendor). */
const VENDORED_TYPESCRIPT = fileURLToPath(new URL("../../vendor/typescript/typescript.js", import.meta.url));

/** The compiler to use: one installed (beside the app or beside hubmcp), else the copy hubmcp ships, if it does. */
export function compilerPath(installed: string | null, vendored: string): string | null {
  return installed ?? (existsSync(vendored) ? vendored : null);
}

/** File URLs of the TypeScript compiler and tsx's register API, where installed. */
export function locateTsTools(appFile: string): { typescript: string | null; tsx: string | null } {
  const ts = compilerPath(locate(appFile, "typescript"), VENDORED_TYPESCRIPT);
  return { typescript: ts ? pathToFileURL(ts).href : null, tsx: locateTsx(appFile) };
}

/** The compiler first: only it keeps doc comments and turns parameter types into schemas. */
export function chooseTsStrategy(features: { typescript?: unknown }, tools: { typescript: string | null; tsx: string | null }): TsStrategy {
  if (tools.typescript) return { kind: "compile", typescript: tools.typescript };
  if (features.typescript) return { kind: "native" };
  if (tools.tsx) return { kind: "tsx", tsx: tools.tsx };
  return { kind: "none" };
}

async function registerTsx(url: string): Promise<void> {
  const api = (await import(url)) as { register: () => unknown };
  api.register();
}

/** Installs the TypeScript loader chosen (the compile strategy needs none); a note to print, or an error message. */
export async function prepareTypeScript(strategy: TsStrategy, file: string): Promise<{ note?: string } | { error: string }> {
  switch (strategy.kind) {
    case "compile":
    case "native":
      return {};
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

/** File URL of the running copy's public entry, where an app's `import "hubmcp"` may land. */
export function selfUrl(): string {
  return new URL(`../index${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
}

let hooksRegistered = false;

/** Whether `import "hubmcp"` already finds a hubmcp from the app's folder (an install, or this package itself). */
function hubmcpResolvesFrom(appFile: string): boolean {
  return resolveFrom(appFile, "hubmcp") !== null;
}

/** Makes `hubmcp` resolve to this copy: in-thread where Node has registerHooks, else on a loader thread. */
function registerSelfResolution(appFile: string): void {
  if (hooksRegistered || hubmcpResolvesFrom(appFile)) return;
  hooksRegistered = true;
  const data: ResolveHookData = { self: selfUrl() };
  const inThread = (moduleApi as { registerHooks?: (hooks: { resolve: typeof resolveSync }) => unknown }).registerHooks;
  if (typeof inThread === "function") {
    initializeHooks(data);
    inThread({ resolve: resolveSync });
  } else if (typeof moduleApi.register === "function") {
    moduleApi.register(new URL(`./resolve-hooks${extname(fileURLToPath(import.meta.url))}`, import.meta.url), { data });
  }
}

export interface LoadOptions {
  features?: { typescript?: unknown };
  env?: NodeJS.ProcessEnv;
}

export async function loadApp(file: string, options: LoadOptions = {}): Promise<AppLoad> {
  const features = options.features ?? (process.features as { typescript?: unknown });
  const path = resolve(file);
  const ext = extname(path).toLowerCase();
  if (!EXTENSIONS.has(ext)) return { kind: "error", message: `${file}: unsupported app file type (use .js, .mjs, .cjs, .ts or .mts)` };
  if (!existsSync(path) || !statSync(path).isFile()) return { kind: "error", message: `app file not found: ${file}` };
  const notes: string[] = [];
  let url = pathToFileURL(path).href;
  let compiled = false;
  let unexpressible: string[] = [];
  let buildRoot: string | undefined;
  if (ext === ".ts" || ext === ".mts") {
    const strategy = chooseTsStrategy(features, locateTsTools(path));
    if (strategy.kind === "compile") {
      const build = await compileApp(path, strategy.typescript, options.env ?? process.env);
      if (build.kind === "error") return { kind: "error", message: build.message };
      url = build.url;
      compiled = true;
      // The compiled entry mirrors the source's absolute path under the build folder.
      const compiledPath = fileURLToPath(build.url);
      buildRoot = compiledPath.slice(0, compiledPath.length - outputPath(path).length);
      // Stack traces then name the user's .ts file, line and column (the build carries source maps).
      process.setSourceMapsEnabled(true);
      markTypeScriptCompiled();
      unexpressible = build.unexpressible;
    }
    const prepared = await prepareTypeScript(strategy, file);
    if ("error" in prepared) return { kind: "error", message: prepared.error };
    if (prepared.note) notes.push(prepared.note);
  }
  // A compiled app's imports are already rewritten; only JavaScript apps may need the hooks.
  if (!compiled) registerSelfResolution(path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    return { kind: "error", message: describeLoadError({ file, path, buildRoot }, err, OWN_CODE) };
  }
  const picked = pickServer(mod, file);
  return picked.kind === "ok" ? { ...picked, notes, unexpressible } : picked;
}
