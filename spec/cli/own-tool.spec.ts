// SLOW (a transpile of the package, `npm pack`, an offline install): a tool app kept in a
// folder of its own imports "hubmcp" with nothing installed beside it, and runs under
// start_mcp from a copied hubmcp folder and from hubmcp installed off a tarball.
// The package is transpiled file by file into a temporary folder (what ships is the
// JavaScript; type errors are the typecheck's business). HUBMCP_SKIP_SLOW=1 skips.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { copyConsoleClient } from "../../scripts/build.mjs";
import { offlineNpmEnv, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";

const skip = process.env.HUBMCP_SKIP_SLOW === "1" ? "HUBMCP_SKIP_SLOW=1" : false;

const APP = `import { McpServer } from "hubmcp";
export const server = new McpServer("mytool", { version: "1.0.0" });
server.tool(function add(a, b) {
  /** Add two numbers. */
  return a + b;
});
`;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** dist/ as the build lays it out, by transpiling each file (seconds, where a checked build takes much longer). */
function transpilePackage(pkg: string): void {
  for (const file of [...sources(join(ROOT, "lib")), ...sources(join(ROOT, "cli"))]) {
    const out = join(pkg, "dist", relative(ROOT, file)).replace(/\.ts$/, ".js");
    const js = ts.transpileModule(readFileSync(file, "utf8"), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true },
    }).outputText;
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, js);
  }
  copyConsoleClient(join(pkg, "dist"));
  for (const file of ["package.json", "README.md"]) cpSync(join(ROOT, file), join(pkg, file));
}

/** Starts start_mcp; resolves with the ready URL; t.after stops it. */
function start(
  t: { after(fn: () => unknown): void },
  launcher: string,
  app: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [launcher, "--app", app, "--host", "127.0.0.1", "--port", "0"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const exit = new Promise<number | null>((resolve) => child.once("close", resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exit;
    }
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const collect = (chunk: string): void => {
      out += chunk;
      const m = /MCP server ready at (\S+)\n/.exec(out);
      if (m) resolve({ url: m[1]!, stop: () => (child.kill("SIGTERM"), exit) });
    };
    child.stdout.setEncoding("utf8").on("data", collect);
    child.stderr.setEncoding("utf8").on("data", collect);
    void exit.then((code) => reject(new Error(`start_mcp exited ${code} before ready:\n${out}`)));
  });
}

async function toolNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}mcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const body = (await res.json()) as { result: { tools: { name: string; description: string }[] } };
  return body.result.tools.map((x) => `${x.name}: ${x.description}`);
}

test("an app in its own folder imports hubmcp without installing it: from a copied folder and from the tarball", { skip, timeout: 180_000 }, async (t) => {
  const dir = tempDir(t, "hubmcp-own-");
  const env = offlineNpmEnv(dir);
  const pkg = join(dir, "pkg");
  transpilePackage(pkg);

  const mytool = join(dir, "home", "mytool");
  mkdirSync(mytool, { recursive: true });
  writeFileSync(join(mytool, "app.mjs"), APP);

  // The locked-down hub: one copied folder, many tool apps.
  const copy = join(dir, "apps", "hubmcp");
  cpSync(pkg, copy, { recursive: true });
  const fromCopy = await start(t, join(copy, "dist", "cli", "start_mcp.js"), join(mytool, "app.mjs"), mytool, env);
  assert.deepEqual(await toolNames(fromCopy.url), ["add: Add two numbers."]);
  assert.equal(await fromCopy.stop(), 0);

  // A host with no registry: npm pack, copy the tarball, npm install it offline.
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: pkg, env, stdio: "pipe" });
  const tarball = readdirSync(dir).find((f) => /^hubmcp-.*\.tgz$/.test(f));
  assert.ok(tarball, "npm pack made a tarball");
  const site = join(dir, "site");
  mkdirSync(site);
  writeFileSync(join(site, "package.json"), JSON.stringify({ name: "site", private: true }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dir, tarball!)], { cwd: site, env, stdio: "pipe" });
  const fromTarball = await start(t, join(site, "node_modules", "hubmcp", "dist", "cli", "start_mcp.js"), join(mytool, "app.mjs"), mytool, env);
  assert.deepEqual(await toolNames(fromTarball.url), ["add: Add two numbers."]);
  assert.equal(await fromTarball.stop(), 0);

  assert.deepEqual(readdirSync(mytool), ["app.mjs"], "nothing installed beside the app");
});
