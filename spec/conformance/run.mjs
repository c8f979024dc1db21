// `npm run conformance`: serves fixtures/conformance/app.ts through the launcher on a free
// loopback port, runs the official MCP conformance suite (../shared/tools/conformance,
// which fetches its own Node 22) against /mcp, stops the server and exits with the
// suite's status. Extra arguments go to the suite: `npm run conformance -- --scenario ping`.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("../..", import.meta.url));
const suite = process.env.MCP_CONFORMANCE ?? join(root, "..", "shared", "tools", "conformance");
const READY_TIMEOUT_MS = 30_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilServing(url, app) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (app.exitCode !== null) throw new Error(`the app exited with status ${app.exitCode} before serving`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the app did not serve ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

const port = await freePort();
const base = `http://127.0.0.1:${port}/`;
const app = spawn(
  process.execPath,
  ["--import", "tsx", "cli/start_mcp.ts", "--app", "fixtures/conformance/app.ts", "--host", "127.0.0.1", "--port", String(port)],
  { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
);
let status = 1;
try {
  await waitUntilServing(base, app);
  const run = spawn(suite, [`${base}mcp`, ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
  // Bounded: a hung suite must fail CI, not hold it (the first run also fetches Node 22 and the suite).
  const limitMs = Number(process.env.CONFORMANCE_TIMEOUT_MS ?? 300_000);
  const timer = setTimeout(() => {
    console.error(`conformance: no result after ${limitMs / 1000} s; stopping the suite`);
    run.kill("SIGKILL");
  }, limitMs);
  status = await new Promise((resolve) => run.once("exit", (code) => resolve(code ?? 1)));
  clearTimeout(timer);
} catch (err) {
  console.error(`conformance: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  await stop(app);
}
process.exitCode = status;
