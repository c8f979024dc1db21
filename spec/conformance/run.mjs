// `npm run conformance`: runs the official MCP conformance suite against
// fixtures/conformance/app.ts in each of PASSES: served by start_mcp on loopback, then
// through the hub gateway. Prints each pass's result and fails if any fails. The suite
// (@modelcontextprotocol/conformance) needs Node 22, so both are installed from npm into a
// cache outside the repository (the project gains no dependency); the first server starts
// while they install.
//
//   npm run conformance                                  # the stable suite, the 2026-07-28 requirement set, the extensions
//   node spec/conformance/run.mjs                        # every scenario of the default suite
//   node spec/conformance/run.mjs --suite-version 0.2.0-alpha.12 --requirements 2026-07-28
//   node spec/conformance/run.mjs --suite-version 0.2.0-alpha.12 --extensions   # each extension scenario, scored
//   npm run conformance -- --scenario tools-call-with-progress
//   CONFORMANCE_VERSION=0.2.0-alpha.12 npm run conformance   # another suite version
//
// Environment: CONFORMANCE_VERSION (suite version), CONFORMANCE_PORT (port the direct pass
// serves on; default: a free one), CONFORMANCE_TIMEOUT_MS (whole run), XDG_CACHE_HOME (cache root),
// npm_config_* (passed to npm as usual). Any failure to install or start is one line on
// stderr, exit status 1, and nothing left running.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const DEFAULT_VERSION = "0.1.16";
const root = fileURLToPath(new URL("../..", import.meta.url));

function cacheDir(env, version) {
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "hubmcp", `conformance-${version}`);
}

/** Paths of the cached Node 22 and suite entry, installed first when missing. */
async function install(env, version, track) {
  const dir = cacheDir(env, version);
  const node = join(dir, "node_modules", "node", "bin", "node");
  const entry = join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  if (existsSync(node) && existsSync(entry)) return { node, entry };
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), '{"private":true}\n');
  const npm = track(
    spawn("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "node@22", `@modelcontextprotocol/conformance@${version}`], {
      cwd: dir,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  const output = collect(npm.stderr);
  const code = await exited(npm);
  if (code !== 0 || !existsSync(node) || !existsSync(entry)) {
    throw new Error(`could not install the suite ${version} and Node 22 from npm (${lastLine(output()) || `npm exited ${code}`})`);
  }
  return { node, entry };
}

/**
 * What the suite runs against, in order: each pass starts its server (a Node script under
 * tsx that prints `ready at <base URL>`), runs the suite on `<base URL>mcp`, and stops it.
 */
export const PASSES = [
  {
    name: "direct",
    server: (env) => ["cli/start_mcp.ts", "--app", "fixtures/conformance/app.ts", "--host", "127.0.0.1", "--port", String(Number(env.CONFORMANCE_PORT ?? 0))],
  },
  { name: "through the gateway", server: () => ["spec/gateway/conformance.ts"] },
];

/** Starts a pass's server on loopback; resolves with the /mcp URL from its ready line. */
function serve(args, track) {
  const app = track(spawn(process.execPath, ["--import", "tsx", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] }));
  const errors = collect(app.stderr);
  return new Promise((resolve, reject) => {
    let out = "";
    app.stdout.setEncoding("utf8");
    app.stdout.on("data", (chunk) => {
      out += chunk;
      const ready = /ready at (http:\/\/\S+)/.exec(out);
      if (ready) {
        app.stdout.resume();
        resolve(`${ready[1]}mcp`);
      }
    });
    app.once("error", (err) => reject(new Error(`could not start the server (${err.message})`)));
    app.once("exit", (code) => reject(new Error(`the server stopped before it was ready (${lastLine(errors()) || `status ${code}`})`)));
  });
}

function collectAll(stream) {
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    text += chunk;
  });
  return () => text;
}

function collect(stream) {
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    text = (text + chunk).slice(-4000);
  });
  return () => text;
}

function lastLine(text) {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? "").slice(0, 300);
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? 1);
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code ?? 1));
    child.once("error", () => resolve(127));
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const done = exited(child);
  child.kill("SIGTERM");
  const force = setTimeout(() => child.kill("SIGKILL"), 5000);
  await done;
  clearTimeout(force);
}

/**
 * `--suite-version X` (or CONFORMANCE_VERSION) picks the suite; `--extensions` runs each of its
 * extension scenarios (skills, tasks) instead of a suite; everything else goes to the suite.
 */
export function parseArgs(argv, env) {
  const rest = [];
  let version = env.CONFORMANCE_VERSION || DEFAULT_VERSION;
  let extensions = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--suite-version" && i + 1 < argv.length) version = argv[++i];
    else if (argv[i].startsWith("--suite-version=")) version = argv[i].slice("--suite-version=".length);
    else if (argv[i] === "--extensions") extensions = true;
    else rest.push(argv[i]);
  }
  if (extensions) return { version, suiteArgs: rest, extensions };
  // A requirement set picks its own scenarios and may not be combined with --suite.
  const picksScenarios = ["--scenario", "--suite", "--requirements"].some((flag) => rest.some((a) => a === flag || a.startsWith(`${flag}=`)));
  return { version, suiteArgs: picksScenarios ? rest : ["--suite", "all", ...rest] };
}

/**
 * The server scenarios `list` tags `[extension]`. A requirement set runs them unscored and no
 * suite or spec version selects them, so each is run on its own with `--scenario`.
 */
export function extensionScenarios(listing) {
  const server = listing.split(/^Client scenarios/m)[0];
  return [...server.matchAll(/^\s*- (\S+) \[extension\]\s*$/gm)].map((m) => m[1]);
}

async function listExtensions(suite, track) {
  const list = track(spawn(suite.node, [suite.entry, "list"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] }));
  const output = collectAll(list.stdout);
  const code = await exited(list);
  const names = extensionScenarios(output());
  if (code !== 0 || names.length === 0) throw new Error("the suite lists no extension scenarios");
  return names;
}

/** Runs the suite against `url`: once with `suiteArgs`, or once per extension scenario; 0 when all passed. */
async function runSuite(suite, url, suiteArgs, scenarios, track) {
  const runOne = (args) => exited(track(spawn(suite.node, [suite.entry, "server", "--url", url, ...args], { cwd: root, stdio: "inherit" })));
  if (!scenarios) return runOne(suiteArgs);
  const failed = [];
  for (const scenario of scenarios) if ((await runOne(["--scenario", scenario, ...suiteArgs])) !== 0) failed.push(scenario);
  if (failed.length > 0) process.stdout.write(`extension scenarios failed: ${failed.join(", ")}\n`);
  return failed.length === 0 ? 0 : 1;
}

export async function main(argv, env) {
  const { version, suiteArgs, extensions } = parseArgs(argv, env);
  const children = new Set();
  const track = (child) => {
    children.add(child);
    child.once("exit", () => children.delete(child));
    return child;
  };
  const limitMs = Number(env.CONFORMANCE_TIMEOUT_MS ?? 600_000);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result after ${limitMs / 1000} s`)), limitMs);
  });
  try {
    // The suite installs while the first server starts.
    const installing = install(env, version, track);
    installing.catch(() => {});
    const results = [];
    let scenarios;
    for (const pass of PASSES) {
      const [url, suite] = await Promise.race([Promise.all([serve(pass.server(env), track), installing]), timeout]);
      if (extensions) scenarios ??= await Promise.race([listExtensions(suite, track), timeout]);
      results.push({ name: pass.name, code: await Promise.race([runSuite(suite, url, suiteArgs, scenarios, track), timeout]) });
      await Promise.all([...children].map(stop));
    }
    for (const r of results) process.stdout.write(`conformance ${r.name}: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`}\n`);
    return results.every((r) => r.code === 0) ? 0 : 1;
  } catch (err) {
    process.stderr.write(`conformance: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
    await Promise.all([...children].map(stop));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
