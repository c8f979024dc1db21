// A TypeScript app, compiled once per content: start_mcp looks up the cache index for the
// app; when every source file still has the recorded hash the cached JavaScript is
// imported as is, otherwise a child process compiles it (./ts-compile-child.ts). The
// cache lives outside the app's folder: $XDG_CACHE_HOME/hubmcp/ts, else ~/.cache/hubmcp/ts,
// else the system temp folder. Whatever is in the cache is imported as the app, so a folder
// another account could write to is never used (it may have been planted, e.g. in /tmp),
// and every cached file is checked against the hash its index recorded before it is used.
import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUILD_FORMAT, buildName, sha256, type BuildIndex, type BuildRequest, type BuildResult } from "./ts-build.ts";

export interface CompiledApp {
  /** File URL of the compiled entry. */
  url: string;
  /** Parameters whose type has no JSON Schema equivalent. */
  unexpressible: string[];
  cached: boolean;
}

export type CompileOutcome = ({ kind: "ok" } & CompiledApp) | { kind: "error"; message: string };

/** Ours alone: a real folder (no symbolic link), owned by this account, closed to group and others. */
function isPrivate(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** A folder others cannot rename entries in: not writable by them, or sticky (/tmp), and ours or root's. */
function steady(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid || st.uid === 0) && ((st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0);
  } catch {
    return false;
  }
}

/** `dir` below `base`, created private where missing; usable only when base is steady and every folder below it private. */
function usable(base: string, dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return false;
  }
  if (!steady(base)) return false;
  const parts = relative(base, dir).split(sep);
  return parts.every((_, i) => isPrivate(join(base, ...parts.slice(0, i + 1))));
}

export function cacheDir(env: NodeJS.ProcessEnv): string {
  const candidates: Array<[string, string]> = [];
  if (env.XDG_CACHE_HOME) candidates.push([env.XDG_CACHE_HOME, join(env.XDG_CACHE_HOME, "hubmcp", "ts")]);
  try {
    const home = env.HOME || homedir();
    candidates.push([join(home, ".cache"), join(home, ".cache", "hubmcp", "ts")]);
  } catch {
    // no home folder
  }
  let user = "user";
  try {
    user = String(userInfo().uid);
  } catch {
    // no user entry
  }
  const tmp = env.TMPDIR || tmpdir();
  candidates.push([tmp, join(tmp, `hubmcp-${user}`, "ts")]);
  const found = candidates.find(([base, dir]) => usable(base, dir));
  // Nothing private to reuse (say another account made /tmp/hubmcp-<uid> first): a fresh folder for this run.
  return found?.[1] ?? mkdtempSync(join(tmp, `hubmcp-${user}-`));
}

/** hubmcp's own folders: its TypeScript sources and the copy that is running. */
function ownCopy(): Pick<BuildRequest, "sourceLib" | "runningLib" | "runningExt" | "self" | "packageRoot"> {
  const here = fileURLToPath(import.meta.url);
  const runningLib = dirname(dirname(here));
  const runningExt = extname(here);
  // Built: <package>/dist/lib; from source: <package>/lib.
  const pkg = runningExt === ".js" ? dirname(dirname(runningLib)) : dirname(runningLib);
  const libUrl = `${pathToFileURL(runningLib).href}/`;
  return { sourceLib: join(pkg, "lib"), runningLib: libUrl, runningExt, self: `${libUrl}index${runningExt}`, packageRoot: pkg };
}

function compilerVersion(typescriptUrl: string): string {
  let dir = dirname(fileURLToPath(typescriptUrl));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "typescript") return `${pkg.version}`;
    } catch {
      // keep climbing
    }
  }
  return typescriptUrl;
}

function readIndex(file: string): BuildIndex | null {
  try {
    const index = JSON.parse(readFileSync(file, "utf8")) as BuildIndex;
    return index.format === BUILD_FORMAT && typeof index.build === "string" ? index : null;
  } catch {
    return null;
  }
}

function hashIs(path: string | URL, hash: unknown): boolean {
  try {
    return typeof hash === "string" && sha256(readFileSync(path)) === hash;
  } catch {
    return false;
  }
}

/**
 * The index still describes the sources (the entry among them, every file with the hash
 * it had), names the build those sources make, and that build holds exactly what was
 * written: an index listing no sources, or a build changed since, is never fresh.
 */
function fresh(index: BuildIndex, key: string, entry: string, builds: string): boolean {
  const files = index.files ?? {};
  const outputs = index.outputs ?? {};
  if (!Object.hasOwn(files, entry) || !Object.hasOwn(outputs, index.entryOut)) return false;
  if (index.build !== buildName(key, files)) return false;
  if (!Object.entries(files).every(([file, hash]) => hashIs(file, hash))) return false;
  return Object.entries(outputs).every(([out, hash]) => !out.split("/").includes("..") && hashIs(new URL(`${index.build}/${out}`, builds), hash));
}

function compileInChild(typescriptUrl: string, request: BuildRequest): Promise<BuildResult> {
  const child = new URL(`./ts-compile-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  // Same loader flags (tsx when running from source), minus debuggers that would clash on a port.
  const flags = [...process.execArgv.filter((f) => !f.startsWith("--inspect")), "--experimental-import-meta-resolve"];
  return new Promise((done) => {
    const proc = spawn(process.execPath, [...flags, fileURLToPath(child), typescriptUrl, JSON.stringify(request)], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    proc.stderr.setEncoding("utf8").on("data", (c: string) => (err = (err + c).slice(-2000)));
    proc.once("error", (e) => done({ ok: false, errors: [`could not start the TypeScript compiler: ${e.message}`] }));
    proc.once("close", (code) => {
      try {
        done(JSON.parse(out) as BuildResult);
      } catch {
        const last = err.trim().split("\n").at(-1) ?? "";
        done({ ok: false, errors: [`the TypeScript compiler exited with status ${code}${last ? `: ${last}` : ""}`] });
      }
    });
  });
}

/** The compiled JavaScript of the app at `file`: from the cache, or compiled now. */
export async function compileApp(file: string, typescriptUrl: string, env: NodeJS.ProcessEnv): Promise<CompileOutcome> {
  const entry = resolve(file);
  const dir = cacheDir(env);
  const own = ownCopy();
  const key = sha256(JSON.stringify([BUILD_FORMAT, entry, own.self, compilerVersion(typescriptUrl)])).slice(0, 32);
  const builds = `${pathToFileURL(join(dir, "builds")).href}/`;
  const located = (index: BuildIndex, cached: boolean): CompileOutcome => ({
    kind: "ok",
    url: new URL(`${index.build}/${index.entryOut}`, builds).href,
    unexpressible: index.unexpressible,
    cached,
  });
  const index = readIndex(join(dir, "entries", `${key}.json`));
  // A build removed or changed by hand is compiled again.
  if (index && fresh(index, key, entry, builds)) return located(index, true);
  const result = await compileInChild(typescriptUrl, { entry, cacheDir: dir, ...own, key });
  if (!result.ok) return { kind: "error", message: `${file} failed to compile:\n${result.errors.join("\n")}` };
  return located(result.index, false);
}
