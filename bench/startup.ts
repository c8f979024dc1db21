// Start-up time of `start_mcp` for an .mjs app: from exec to the "ready" line, which is
// printed once the socket listens. Measures the built CLI (what ships), compiled into a
// temporary folder so the work tree's dist/ is neither required nor touched.
// Standalone: `node --import tsx bench/startup.ts [--quick]`.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function build(dir: string): void {
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", join(dir, "dist")], { stdio: "pipe" });
  } catch {
    // Type errors elsewhere still emit JavaScript; the run below fails loudly if the CLI is missing.
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "hubmcp", type: "module" }));
}

/** One start: ms from spawn to the ready line; the server is then stopped. */
function once(cli: string, app: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const name of ["SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR", "NODE_OPTIONS"]) delete env[name];
    const start = performance.now();
    const child = spawn(process.execPath, [cli, "--app", app, "--host", "127.0.0.1", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let elapsed: number | null = null;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (elapsed === null && out.includes("MCP server ready at ")) {
        elapsed = performance.now() - start;
        child.kill("SIGTERM");
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.once("error", reject);
    child.once("close", () => (elapsed === null ? reject(new Error(`start_mcp did not start:\n${out}`)) : resolve(elapsed)));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function startupRow(opts: { quick: boolean }): Promise<{ name: string; ms: number }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hubmcp-startup-")));
  try {
    build(dir);
    const app = join(dir, "app.mjs");
    writeFileSync(
      app,
      `import { McpServer } from "./dist/lib/index.js";
export const server = new McpServer("startup");
server.tool(function add(a, b) { /** Add two numbers. */ return a + b; });
`,
    );
    const cli = join(dir, "dist", "cli", "start_mcp.js");
    await once(cli, app); // warm the file cache; not counted
    const runs = opts.quick ? 3 : 9;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await once(cli, app));
    return { name: "start-up (.mjs app, exec → listening)", ms: median(times) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const row = await startupRow({ quick: process.argv.includes("--quick") });
  process.stdout.write(`${row.name}: ${row.ms.toFixed(0)} ms (target ≤ 300 ms)\n`);
}
