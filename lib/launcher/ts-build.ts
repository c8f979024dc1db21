// Compiling a TypeScript app and the `.ts` files it imports into a build folder named
// by the hash of their contents, and the cache index that lets later starts skip it.
// This runs in a short-lived child process (./ts-compile-child.ts), so the compiler's
// memory never stays in the server. Every import of the compiled files is rewritten to
// where it leads (a compiled sibling, a file URL, the running hubmcp), so the server
// loads them with no module hooks.
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isBuiltin } from "node:module";
import { pathToFileURL } from "node:url";
import type TS from "typescript";
import { compileFile } from "./ts-compile.ts";

/** Bumped whenever the output of a compile (or the index) changes for the same input. */
export const BUILD_FORMAT = 4;

export interface BuildRequest {
  /** Absolute path of the app's entry file. */
  entry: string;
  /** Cache root: `builds/` and `entries/` live here. */
  cacheDir: string;
  /** hubmcp's own TypeScript sources (`<package>/lib/`): imports into it go to the running copy. */
  sourceLib: string;
  /** File URL of the running copy's lib folder, with a trailing slash. */
  runningLib: string;
  /** Extension of the running copy's modules (".js" built, ".ts" from source). */
  runningExt: string;
  /** File URL of the running copy's `lib/index`: where `import "hubmcp"` goes when the app has no hubmcp of its own. */
  self: string;
  /** hubmcp's package folder: a `hubmcp` that resolves into it is the running copy too. */
  packageRoot: string;
  /** Cache key of this request (see ts-cache.ts). */
  key: string;
}

export interface BuildIndex {
  format: number;
  /** Folder under `builds/`. */
  build: string;
  /** The entry's compiled file, relative to the build folder. */
  entryOut: string;
  /** Every compiled source file and the sha-256 of its contents. */
  files: Record<string, string>;
  /** Every compiled file, relative to the build folder, and the sha-256 it was written with. */
  outputs: Record<string, string>;
  unexpressible: string[];
}

export type BuildResult = { ok: true; index: BuildIndex } | { ok: false; errors: string[] };

export function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

const TS_EXT = /\.m?ts$/;

/** The compiled file's path inside a build folder: the source's absolute path, mirrored. */
export function outputPath(source: string): string {
  const mirrored = resolve(source)
    .replace(/^[A-Za-z]:/, "")
    .split(sep)
    .filter(Boolean)
    .join("/");
  return mirrored.replace(TS_EXT, ".mjs");
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The file a relative specifier names, trying tsc's `./x.js` → `./x.ts` convention. */
function target(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  const candidates = specifier.endsWith(".js")
    ? [`${base.slice(0, -3)}.ts`, base]
    : specifier.endsWith(".mjs")
      ? [`${base.slice(0, -4)}.mts`, base]
      : extname(base) === ""
        ? [`${base}.ts`, join(base, "index.ts"), base]
        : [base];
  return candidates.find(isFile) ?? null;
}

function isPathSpecifier(s: string): boolean {
  return s.startsWith("./") || s.startsWith("../") || isAbsolute(s);
}

/**
 * A package import, resolved as from the source file (the compiled file lives in the
 * cache, where the app's node_modules cannot be found). Needs the child's
 * --experimental-import-meta-resolve. Builtins stay; an unresolvable one stays and fails
 * at load with Node's own message.
 */
function resolvePackage(specifier: string, from: string, request: BuildRequest): string | undefined {
  if (specifier.startsWith("node:") || isBuiltin(specifier)) return undefined;
  const self = specifier === "hubmcp";
  let found: string | undefined;
  try {
    found = import.meta.resolve(specifier, pathToFileURL(from).href);
  } catch {
    return self ? request.self : undefined;
  }
  if (self && found.startsWith(pathToFileURL(request.packageRoot).href + "/")) return request.self;
  return found;
}

/**
 * The `lib/` folder (with a trailing separator) of the hubmcp package `file` lies in, if it
 * lies in one. The package manifest that decided it is recorded in `files`, so a renamed
 * package makes the build stale.
 */
function hubmcpLibOf(file: string, files: Record<string, string>): string | null {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const path = join(dir, "package.json");
    const bytes = ownManifest(path);
    if (bytes !== null) {
      files[path] = sha256(bytes);
      let name: unknown;
      try {
        name = (JSON.parse(bytes.toString("utf8")) as { name?: unknown }).name;
      } catch {
        name = undefined;
      }
      const lib = join(dir, "lib") + sep;
      return name === "hubmcp" && file.startsWith(lib) ? lib : null;
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * A package.json only when it is a regular file of this account's or root's, opened without
 * following a link or waiting on a pipe: what another account leaves in a shared folder
 * (a FIFO in /tmp, say) decides nothing and cannot stall a start.
 */
function ownManifest(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid && st.uid !== 0)) return null;
    return readFileSync(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function relativeSpecifier(from: string, to: string): string {
  const rel = relative(dirname(outputPath(from)), outputPath(to))
    .split(sep)
    .join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

export function buildApp(ts: typeof TS, request: BuildRequest): BuildResult {
  const sourceLib = resolve(request.sourceLib) + sep;
  const queue = [resolve(request.entry)];
  const outputs = new Map<string, string>();
  const files: Record<string, string> = {};
  const unexpressible: string[] = [];
  const errors: string[] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (outputs.has(file)) continue;
    const source = readFileSync(file, "utf8");
    files[file] = sha256(source);
    const label = relative(dirname(request.entry), file) || file;
    const compiled = compileFile(
      ts,
      source,
      label,
      (specifier) => {
        if (!isPathSpecifier(specifier)) return resolvePackage(specifier, file, request);
        const found = target(file, specifier);
        if (found === null) return undefined; // Node reports the missing module when the app loads
        if (found.startsWith(sourceLib)) {
          // hubmcp's own source (the repository's examples): use the copy that is running.
          return request.runningLib + relative(sourceLib, found).split(sep).join("/").replace(TS_EXT, request.runningExt);
        }
        const otherLib = hubmcpLibOf(found, files);
        if (otherLib !== null) {
          // Another copy of hubmcp's sources: the running copy serves what it also has, so one
          // process never holds two hubmcps (a module only the other copy has is compiled).
          const running = request.runningLib + relative(otherLib, found).split(sep).join("/").replace(TS_EXT, request.runningExt);
          if (existsSync(new URL(running))) return running;
        }
        if (TS_EXT.test(found)) {
          queue.push(found);
          return relativeSpecifier(file, found);
        }
        return pathToFileURL(found).href;
      },
      pathToFileURL(file).href,
    );
    errors.push(...compiled.errors);
    unexpressible.push(...compiled.unexpressible.map((u) => `${label} ${u}`));
    outputs.set(file, compiled.code);
  }
  if (errors.length > 0) return { ok: false, errors };

  const build = buildName(request.key, files);
  const written: Record<string, string> = {};
  for (const [file, code] of outputs) written[outputPath(file)] = sha256(code);
  const buildDir = join(request.cacheDir, "builds", build);
  // A build folder changed since it was written (it holds code that will be imported) is replaced.
  if (!Object.entries(written).every(([out, hash]) => hashOf(join(buildDir, out)) === hash)) {
    rmSync(buildDir, { recursive: true, force: true });
    // Written aside, then renamed: a concurrent start never sees half a build.
    const temp = `${buildDir}.tmp-${process.pid}`;
    for (const [file, code] of outputs) {
      const out = join(temp, outputPath(file));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code);
    }
    try {
      renameSync(temp, buildDir);
    } catch {
      rmSync(temp, { recursive: true, force: true }); // another start won the race with the same contents
    }
  }
  const index: BuildIndex = { format: BUILD_FORMAT, build, entryOut: outputPath(request.entry), files, outputs: written, unexpressible };
  const entries = join(request.cacheDir, "entries");
  mkdirSync(entries, { recursive: true });
  const indexFile = join(entries, `${request.key}.json`);
  const previous = buildOf(indexFile);
  writeFileSync(`${indexFile}.tmp-${process.pid}`, JSON.stringify(index));
  renameSync(`${indexFile}.tmp-${process.pid}`, indexFile);
  if (previous && previous !== build) pruneBuild(request.cacheDir, previous);
  return { ok: true, index };
}

/** A build folder's name follows from its cache key and its sources' hashes, so an index cannot point elsewhere. */
export function buildName(key: string, files: Record<string, string>): string {
  return sha256(JSON.stringify([key, files])).slice(0, 32);
}

function hashOf(path: string): string | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}

function buildOf(indexFile: string): string | null {
  try {
    const build = (JSON.parse(readFileSync(indexFile, "utf8")) as { build?: unknown }).build;
    return typeof build === "string" && /^[0-9a-f]{32}$/.test(build) ? build : null;
  } catch {
    return null;
  }
}

/** Removes a build no entry points at any more, so edits do not pile up old builds. */
function pruneBuild(cacheDir: string, build: string): void {
  const entries = join(cacheDir, "entries");
  const used = readdirSync(entries).some((name) => name.endsWith(".json") && buildOf(join(entries, name)) === build);
  if (!used) rmSync(join(cacheDir, "builds", build), { recursive: true, force: true });
}
