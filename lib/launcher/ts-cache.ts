// A TypeScript app, compiled once per content: start_mcp looks up the cache index for the
// app; when every source file still has the recorded hash the cached JavaScript is
// imported as is, otherwise a child process compiles it (./ts-compile-child.ts). The
// cache lives outside the app's folder: $XDG_CACHE_HOME/hubmcp/ts, else ~/.cache/hubmcp/ts,
// else the system temp folder.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUILD_FORMAT, sha256, type BuildIndex, type BuildRequest, type BuildResult } from "./ts-build.ts";

export interface CompiledApp {
  /** File URL of the compiled entry. */
  url: string;
  /** Parameters whose type has no JSON Schema equivalent. */
  unexpressible: string[];
  cached: boolean;
}

export type CompileOutcome = ({ kind: "ok" } & CompiledApp) | { kind: "error"; message: string };

function usable(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

export function cacheDir(env: NodeJS.ProcessEnv): string {
  const candidates: string[] = [];
  if (env.XDG_CACHE_HOME) candidates.push(join(env.XDG_CACHE_HOME, "hubmcp", "ts"));
  try {
    candidates.push(join(homedir(), ".cache", "hubmcp", "ts"));
  } catch {
    // no home folder
  }
  let user = "user";
  try {
    user = String(userInfo().uid);
  } catch {
    // no user entry
  }
  candidates.push(join(tmpdir(), `hubmcp-${user}`, "ts"));
  return candidates.find(usable) ?? candidates.at(-1)!;
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

/** The index still describes the sources: every file has the hash it had. */
function fresh(index: BuildIndex): boolean {
  return Object.entries(index.files).every(([file, hash]) => {
    try {
      return sha256(readFileSync(file)) === hash;
    } catch {
      return false;
    }
  });
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
  if (index && fresh(index)) {
    // A build removed by hand is compiled again.
    if (existsSync(new URL(`${index.build}/${index.entryOut}`, builds))) return located(index, true);
  }
  const result = await compileInChild(typescriptUrl, { entry, cacheDir: dir, ...own, key });
  if (!result.ok) return { kind: "error", message: `${file} failed to compile:\n${result.errors.join("\n")}` };
  return located(result.index, false);
}
