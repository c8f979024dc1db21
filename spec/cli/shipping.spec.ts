// SLOW (a build, `npm pack`, an offline install): start_mcp as it ships. The package is
// built into a temporary folder (the work tree's dist/ is left alone), packed, installed
// with no network into an empty folder and run with `npx start_mcp`, installed globally
// into a temporary prefix (the README's path without a registry: every bin on PATH), and a
// plain copy of the package folder runs with `node <copy>/dist/cli/start_mcp.js`. Each serves
// the tool console's script as the work tree joins it (the browser modules ship in dist).
// HUBMCP_SKIP_SLOW=1 skips those; the lock file check is quick and always runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { consoleScript } from "../../lib/console/script.ts";
import { alive, freePort, offlineNpmEnv, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

const skip = process.env.HUBMCP_SKIP_SLOW === "1" ? "HUBMCP_SKIP_SLOW=1" : false;

const APP = (from: string) => `import { McpServer } from ${JSON.stringify(from)};
export const server = new McpServer("shipped", { version: "9.9.9" });
server.tool(function add(a, b) {
  /** Add two numbers. */
  return a + b;
});
`;

const TS_APP = `import { McpServer } from "hubmcp";
export const server = new McpServer("shipped-ts");
server.tool(function divide(a: number, b: number) {
  /** Divide a by b. */
  return a / b;
});
`;
const TYPED = {
  description: "Divide a by b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};
const TSC = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");

/** The one tool's description and input schema, as a running server lists it. */
async function typedSchema(url: string): Promise<unknown> {
  const res = await fetch(`${url}mcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const tool = ((await res.json()) as { result: { tools: Array<{ description: string; inputSchema: unknown }> } }).result.tools[0]!;
  return { description: tool.description, inputSchema: tool.inputSchema };
}

interface Run {
  ready: Promise<string>;
  exit: Promise<number | null>;
  output(): string;
  stop(): void;
}

/** Runs a command in its own process group (npx starts node beneath it); t.after kills the group. */
function run(t: { after(fn: () => unknown): void }, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Run {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let onReady: (url: string) => void;
  const ready = new Promise<string>((resolve) => (onReady = resolve));
  const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const collect = (chunk: string): void => {
    out += chunk;
    const m = /(?:MCP server|hub_gateway) ready at (\S+)\n/.exec(out);
    if (m) onReady(m[1]!);
  };
  child.stdout.setEncoding("utf8").on("data", collect);
  child.stderr.setEncoding("utf8").on("data", collect);
  const group = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // gone
    }
  };
  t.after(async () => {
    if (alive(child.pid!)) {
      group("SIGKILL");
      await exit;
    }
  });
  const readyOrExit = Promise.race([ready, exit.then((code) => Promise.reject(new Error(`exited ${code} before ready:\n${out}`)))]);
  readyOrExit.catch(() => {}); // awaited only by runs expected to start
  return {
    ready: readyOrExit,
    exit,
    output: () => out,
    stop: () => group("SIGTERM"),
  };
}

interface Manifest {
  name: string;
  version: string;
  license?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

test("package-lock.json agrees with package.json, so `npm install` leaves it as committed", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { name: string; version: string; packages: Record<string, Manifest> };
  const root = lock.packages[""]!;
  assert.equal(lock.name, pkg.name);
  assert.equal(lock.version, pkg.version);
  const fields = ["name", "version", "license", "bin", "engines", "dependencies", "devDependencies"] as const;
  for (const field of fields) assert.deepEqual(root[field], pkg[field], `the lock's root entry has package.json's ${field}`);
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.ok(lock.packages[`node_modules/${dep}`], `the lock resolves ${dep}`);
  }
});

async function toolNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}mcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const body = (await res.json()) as { result: { tools: { name: string; description: string }[] } };
  return body.result.tools.map((x) => `${x.name}: ${x.description}`);
}

/** The console page and its script, as the installed package serves them. */
async function assertConsole(url: string): Promise<void> {
  const page = await fetch(url, { headers: { accept: "text/html" } });
  assert.match(await page.text(), /<script src="console\/console.js" defer>/);
  const script = await fetch(`${url}console/console.js`);
  assert.equal(script.status, 200);
  assert.equal(await script.text(), consoleScript, "the shipped console script is the one the work tree joins");
}

test("the packed tarball installs offline into an empty folder and `npx start_mcp` serves; a plain copy runs too", { skip, timeout: 180_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-ship-");
  const env = offlineNpmEnv(dir);
  const pkg = join(dir, "pkg");
  mkdirSync(pkg);
  for (const file of ["package.json", "README.md"]) cpSync(join(ROOT, file), join(pkg, file));
  // Type errors are npm test's typecheck step's business; what ships is what the build emits.
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), join(pkg, "dist")], { stdio: "pipe" });
  } catch {
    // reported by the typecheck
  }
  assert.ok(existsSync(join(pkg, "dist", "cli", "start_mcp.js")), "the build emits the CLI");
  assert.ok(existsSync(join(pkg, "dist", "lib", "console", "client", "app.js")), "the build copies the console's browser modules");

  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: pkg, env, stdio: "pipe" });
  const tarball = readdirSync(dir).find((f) => /^hubmcp-.*\.tgz$/.test(f));
  assert.ok(tarball, "npm pack made a tarball");

  const site = join(dir, "site");
  mkdirSync(site);
  writeFileSync(join(site, "package.json"), JSON.stringify({ name: "site", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dir, tarball!)], { cwd: site, env, stdio: "pipe" });
  writeFileSync(join(site, "app.mjs"), APP("hubmcp"));
  const viaNpx = run(t, "npx", ["--offline", "start_mcp", "--app", "app.mjs", "--host", "127.0.0.1", "--port", "0"], site, env);
  const url = await viaNpx.ready;
  assert.deepEqual(await toolNames(url), ["add: Add two numbers."]);
  await assertConsole(url);
  viaNpx.stop();
  await viaNpx.exit;

  // Nothing installed beside it (no typescript, no tsx): the compiler hubmcp ships compiles a
  // .ts app, its types becoming the schema and its doc comments descriptions (issue 34.5).
  writeFileSync(join(site, "app.ts"), TS_APP);
  const tsEnv = { ...env, XDG_CACHE_HOME: join(dir, "cache") };
  const ts = run(
    t,
    process.execPath,
    [join(site, "node_modules", "hubmcp", "dist", "cli", "start_mcp.js"), "--app", "app.ts", "--host", "127.0.0.1", "--port", "0"],
    site,
    tsEnv,
  );
  assert.deepEqual(await typedSchema(await ts.ready), TYPED);
  ts.stop();
  await ts.exit;

  // `npm install -g` of the tarball into a prefix: start_mcp, hub_gateway and hub_bridge on PATH.
  const prefix = join(dir, "prefix");
  execFileSync("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", join(dir, tarball!)], { cwd: dir, env, stdio: "pipe" });
  const bin = join(prefix, "bin");
  const pathEnv = { ...env, PATH: `${bin}:${env.PATH ?? ""}` };
  for (const name of ["start_mcp", "hub_gateway", "hub_bridge"]) {
    const help = spawnSync(name, ["--help"], { cwd: dir, env: pathEnv, encoding: "utf8", timeout: 30_000 });
    assert.equal(help.status, 0, `${name} --help from the global install`);
    assert.match(help.stdout + help.stderr, new RegExp(`usage: ${name}`));
  }
  const global = run(t, "start_mcp", ["--app", join(site, "app.mjs"), "--host", "127.0.0.1", "--port", "0"], site, pathEnv);
  assert.deepEqual(await toolNames(await global.ready), ["add: Add two numbers."]);
  global.stop();
  await global.exit;
  // The global install runs a .ts app with nothing beside it, and `init` gives the app's folder its types.
  const own = join(dir, "own");
  mkdirSync(own);
  writeFileSync(join(own, "app.ts"), TS_APP);
  const globalTs = run(t, "start_mcp", ["--app", join(own, "app.ts"), "--host", "127.0.0.1", "--port", "0"], own, {
    ...pathEnv,
    XDG_CACHE_HOME: join(dir, "cache"),
  });
  assert.deepEqual(await typedSchema(await globalTs.ready), TYPED);
  globalTs.stop();
  await globalTs.exit;
  const init = spawnSync("start_mcp", ["init", own], { cwd: own, env: pathEnv, encoding: "utf8", timeout: 30_000 });
  assert.equal(init.status, 0, init.stderr);
  const checked = spawnSync(process.execPath, [TSC, "-p", own], { encoding: "utf8", timeout: 60_000 });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);

  const copy = join(dir, "copy");
  cpSync(pkg, join(copy, "hubmcp"), { recursive: true });
  writeFileSync(join(copy, "app.mjs"), APP("./hubmcp/dist/lib/index.js"));
  const plain = run(
    t,
    process.execPath,
    [join(copy, "hubmcp", "dist", "cli", "start_mcp.js"), "--app", "app.mjs", "--host", "127.0.0.1", "--port", "0"],
    copy,
    env,
  );
  const copyUrl = await plain.ready;
  assert.deepEqual(await toolNames(copyUrl), ["add: Add two numbers."]);
  await assertConsole(copyUrl);
  plain.stop();
  assert.equal(await plain.exit, 0);

  // `hub_gateway init` prints the start command as it was run: from PATH `hub_gateway …`, from
  // a copied folder `node <copy>/dist/cli/hub_gateway.js …` (no hub_gateway on PATH there), and
  // the printed command starts the gateway as it stands.
  const initFrom = async (command: string, args: string[], envFor: NodeJS.ProcessEnv, name: string): Promise<string[]> => {
    const port = String(await freePort());
    const ok = spawnSync(
      command,
      [...args, "init", "--app", join(copy, "app.mjs"), "--config", join(dir, `${name}.json`), "--data-dir", join(dir, `${name}-data`), "--port", port],
      { cwd: dir, env: envFor, encoding: "utf8", timeout: 30_000 },
    );
    assert.equal(ok.status, 0, ok.stderr);
    const lines = ok.stdout.split("\n");
    return lines[lines.indexOf("start the gateway:") + 1]!.trim().split(" ");
  };
  assert.deepEqual((await initFrom("hub_gateway", [], pathEnv, "global")).slice(0, 2), ["hub_gateway", "--config"]);
  const fromCopy = await initFrom(process.execPath, [join(copy, "hubmcp", "dist", "cli", "hub_gateway.js")], env, "copy");
  assert.deepEqual(fromCopy.slice(0, 3), ["node", join(copy, "hubmcp", "dist", "cli", "hub_gateway.js"), "--config"]);
  const gateway = run(t, process.execPath, fromCopy.slice(1), dir, env);
  assert.match(await gateway.ready, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  gateway.stop();
  assert.equal(await gateway.exit, 0);
});
