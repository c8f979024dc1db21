// Start-up time of `start_mcp`: from exec to the "ready" line, which is printed once the
// socket listens. Measures the built CLI (what ships, see ./build.ts).
// Standalone: `node --import tsx bench/startup.ts [--quick]`.
import { spawn, type ChildProcess } from "node:child_process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildPackage, writeAddApp, type BuiltPackage } from "./build.ts";

export const READY = "MCP server ready at ";

/** The environment start_mcp sees in the rows: no session variables, no inherited Node flags. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR", "NODE_OPTIONS"]) delete env[name];
  return env;
}

export interface Started {
  child: ChildProcess;
  /** ms from spawn to the ready line. */
  ms: number;
  stop(): Promise<void>;
}

/** Starts `start_mcp --app <app>` on an ephemeral loopback port and resolves at its ready line. */
export function startLauncher(cli: string, app: string, timeoutMs = 60_000): Promise<Started> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [cli, "--app", app, "--host", "127.0.0.1", "--port", "0"], { env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<void>((done) => child.once("close", () => done()));
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    };
    let out = "";
    let ready = false;
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`start_mcp was not ready within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (!ready && out.includes(READY)) {
        ready = true;
        clearTimeout(timer);
        resolve({ child, ms: performance.now() - start, stop });
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.once("error", reject);
    child.once("close", () => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`start_mcp did not start: ${out.trim().split("\n").slice(-3).join(" / ")}`));
    });
  });
}

/** One start: ms from spawn to the ready line; the server is then stopped. */
export async function timeToReady(cli: string, app: string): Promise<number> {
  const started = await startLauncher(cli, app);
  await started.stop();
  return started.ms;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median start-up of an .mjs app, after one unmeasured start that warms the file cache. */
export async function startupRow(pkg: BuiltPackage, quick: boolean): Promise<{ name: string; ms: number }> {
  const app = writeAddApp(pkg, "startup-app.mjs");
  await timeToReady(pkg.cli, app);
  const times: number[] = [];
  for (let i = 0; i < (quick ? 3 : 9); i++) times.push(await timeToReady(pkg.cli, app));
  return { name: "start-up (.mjs app, exec → listening)", ms: median(times) };
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = buildPackage();
  try {
    const row = await startupRow(pkg, process.argv.includes("--quick"));
    process.stdout.write(`${row.name}: ${row.ms.toFixed(0)} ms (target ≤ 300 ms)\n`);
  } finally {
    pkg.remove();
  }
}
