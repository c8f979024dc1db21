// What start_mcp says when an app fails to load: the user's file, line and column first,
// then the error, never Node's internal frames or the compile cache's paths. Node keeps an
// ES module's syntax error position to itself (it prints it only for a crash), so the file
// at fault is found by `node --check` over the app and the files it imports.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommandSync } from "../util/run-command.ts";

/** Most files `node --check` looks through for a syntax error. */
const MAX_CHECKED = 50;

export interface LoadContext {
  /** The app file as the user named it. */
  file: string;
  /** Its absolute path. */
  path: string;
  /** Folder of the compiled copy that mirrors absolute source paths (ts-build.ts outputPath), for a compiled app. */
  buildRoot?: string;
}

/** A path as the user would write it: relative to the app file they named. */
function shown(ctx: LoadContext, path: string): string {
  if (path === ctx.path) return ctx.file;
  const rel = relative(dirname(ctx.path), path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : join(dirname(ctx.file), rel);
}

/** A compiled copy's path back to its source (`.mjs` → `.ts`/`.mts` where that exists). */
function sourceOf(ctx: LoadContext, path: string): string {
  if (!ctx.buildRoot || !path.startsWith(ctx.buildRoot)) return path;
  const mirrored = `/${path.slice(ctx.buildRoot.length)}`;
  if (!mirrored.endsWith(".mjs")) return mirrored;
  const base = mirrored.slice(0, -4);
  return [`${base}.ts`, `${base}.mts`, mirrored].find(existsSync) ?? mirrored;
}

/** Every absolute path or file URL in `text`, mapped to the user's file and shown as the user would write it. */
function userPaths(ctx: LoadContext, text: string): string {
  return text.replace(/(?:file:\/\/)?(\/[^\s'"():]+)/g, (whole, path: string) => {
    const abs = whole.startsWith("file://") ? fileURLToPath(whole) : path;
    return shown(ctx, sourceOf(ctx, abs));
  });
}

/** A frame of the user's code: not Node's own, not hubmcp's. */
function isUsers(frame: string, own: readonly string[]): boolean {
  return !frame.includes("node:internal") && !own.some((dir) => frame.includes(dir));
}

function frames(stack: string): string[] {
  return stack.split("\n").filter((l) => /^\s+at /.test(l));
}

/** `path:line:col` of the first stack frame that is the user's (not Node's, not hubmcp's own). */
function firstUserFrame(ctx: LoadContext, stack: string, own: readonly string[]): string | null {
  for (const frame of frames(stack)) {
    const m = /\(?((?:file:\/\/)?\/[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(frame);
    if (!m) continue;
    const path = m[1]!.startsWith("file://") ? fileURLToPath(m[1]!) : m[1]!;
    if (!isUsers(frame, own)) continue;
    return `${shown(ctx, sourceOf(ctx, path))}:${m[2]}:${m[3]}`;
  }
  return null;
}

/** Relative imports of a JavaScript file, as absolute paths (a plain scan: enough to find the next file to check). */
function relativeImports(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) found.push(resolve(dirname(path), m[1]!));
  return found;
}

/** `path:line:col` of the syntax error `node --check` finds in the app or a file it imports. */
function locateSyntaxError(ctx: LoadContext): string | null {
  const queue = [ctx.path];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_CHECKED) {
    const path = queue.shift()!;
    if (seen.has(path) || !existsSync(path)) continue;
    seen.add(path);
    const check = runCommandSync(process.execPath, ["--check", path], { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });
    if (check.code !== 0 && check.stderr) {
      // "<path>:<line>\n<source line>\n<spaces>^\n\nSyntaxError: ..."
      const lines = check.stderr.split("\n");
      const at = /^(.*):(\d+)$/.exec(lines[0] ?? "");
      const caret = lines[2]?.indexOf("^") ?? -1;
      if (at) return `${shown(ctx, path)}:${at[2]}:${caret + 1}`;
    }
    queue.push(...relativeImports(path));
  }
  return null;
}

/** The line of the import of `missing` in `importer`, as `path:line:col`. */
function importSite(ctx: LoadContext, importer: string, missing: string): string | null {
  let text: string;
  try {
    text = readFileSync(importer, "utf8");
  } catch {
    return null;
  }
  let specifier = relative(dirname(importer), missing);
  if (!specifier.startsWith(".")) specifier = `./${specifier}`;
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    for (const quote of ['"', "'"]) {
      const col = line.indexOf(`${quote}${specifier}${quote}`);
      if (col !== -1) return `${shown(ctx, importer)}:${i + 1}:${col + 1}`;
    }
  }
  return `${shown(ctx, importer)}:1:1`;
}

/** One message for an app that failed to import: location first, then the error and the user's frames only. */
export function describeLoadError(ctx: LoadContext, err: unknown, own: readonly string[]): string {
  if (!(err instanceof Error)) return `${ctx.file} failed to load: ${String(err)}`;
  const headline = `${err.name}: ${userPaths(ctx, err.message)}`;
  const stack = err.stack ?? "";
  const code = (err as NodeJS.ErrnoException).code;
  let where: string | null = null;
  if (err instanceof SyntaxError && frames(stack).every((f) => !isUsers(f, own))) {
    where = locateSyntaxError(ctx);
  } else if (code === "ERR_MODULE_NOT_FOUND") {
    const m = /Cannot find (?:module|package) '([^']+)' imported from (\S+)/.exec(err.message);
    if (m) {
      const importer = sourceOf(ctx, m[2]!.startsWith("file://") ? fileURLToPath(m[2]!) : m[2]!);
      where = importSite(ctx, importer, isAbsolute(m[1]!) ? sourceOf(ctx, m[1]!) : m[1]!);
    }
  } else {
    where = firstUserFrame(ctx, stack, own);
  }
  // Loaders that parse themselves (tsx: "Parse error <path>:<line>:<col>") put the place in the message.
  const said = /((?:file:\/\/)?\/[^\s'"():]+):(\d+):(\d+)/.exec(err.message);
  if (where === null && said) where = `${userPaths(ctx, said[1]!)}:${said[2]}:${said[3]}`;
  const rest = frames(stack)
    .filter((f) => isUsers(f, own))
    .map((f) => `    ${userPaths(ctx, f.trim())}`);
  return [where ? `${where} ${headline}` : `${ctx.file}: ${headline}`, ...rest].join("\n");
}
