// Malformed-request sweep (the security review's check): starts the real programs from this
// checkout (a `start_mcp` tool server and a `hub_gateway` made by `init`, which runs the demo
// as a person's tool session), then sends N requests built from valid MCP, OAuth and REST
// requests by random damage, to every front door: the tool server, the gateway's per-tool
// route, its legacy SSE, REST and OpenAPI, the one connector /mcp, and the OAuth endpoints.
// It prints the statuses per door, every 5xx (method, path, the body's first bytes), and the
// resident memory of each program as the run goes on; it exits 1 on any 5xx or crash.
//   node --import tsx scripts/fuzz.ts [--requests 100000] [--seed 1] [--concurrency 32]
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { damagedRequest, type FuzzTarget, makeRandom } from "./fuzz-requests.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: { requests: { type: "string", default: "100000" }, seed: { type: "string", default: "1" }, concurrency: { type: "string", default: "32" } },
});
const TOTAL = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rssKb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The pids of a process's children (the gateway's tool sessions), from /proc. */
function childrenOf(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString("utf8");
      const m = pattern.exec(seen);
      if (m) {
        child.stdout?.off("data", onData);
        child.stderr?.off("data", onData);
        resolve(m[0]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited (${code}) before it was ready:\n${seen.slice(-2000)}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

interface Answer {
  status: number;
  /** The first bytes of a 5xx answer's body, or why no answer came. */
  said?: string;
}

function send(base: string, t: { method: string; path: string; headers: Record<string, string>; body?: Buffer }): Promise<Answer> {
  return new Promise((resolve) => {
    // A body is framed by its length: Node sends a DELETE's body unframed otherwise, which the
    // server rightly reads as a broken next request, and the reset lands on an innocent one.
    const headers = t.body ? { ...t.headers, "content-length": String(t.body.length) } : t.headers;
    const req = request(`${base}${t.path}`, { method: t.method, headers, agent, timeout: 20_000 }, (res) => {
      const status = res.statusCode ?? 0;
      // Streams (SSE) stay open: one status line is all this check reads.
      if (String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        res.destroy();
        resolve({ status });
        return;
      }
      let said = "";
      res.on("data", (chunk: Buffer) => {
        if (status >= 500 && said.length < 200) said += chunk.toString("utf8");
      });
      res.once("end", () => resolve({ status, said: status >= 500 ? `${said.slice(0, 200)} retry-after=${res.headers["retry-after"] ?? "-"}` : undefined }));
      res.once("error", (err) => resolve({ status: -1, said: (err as NodeJS.ErrnoException).code ?? err.message }));
    });
    req.once("timeout", () => req.destroy(new Error("timeout")));
    req.once("error", (err) => resolve({ status: -1, said: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(t.body);
  });
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-fuzz-"));
  const children: ChildProcess[] = [];
  try {
    const gwPort = await freePort();
    const password = "fuzz-password-1234";
    const init = spawnSync(process.execPath, [join(ROOT, "dist/cli/hub_gateway.js"), "init", "--user", "fuzz", "--password-stdin", "--port", String(gwPort)], {
      cwd: dir,
      input: `${password}\n`,
      encoding: "utf8",
    });
    const token = /^\s+(hubmcp_\S+)$/m.exec(init.stdout)?.[1];
    if (!token) throw new Error(`hub_gateway init printed no token:\n${init.stdout}${init.stderr}`);
    // Limits high enough that the damage reaches past the rate limit, and a shared revision
    // of the same app beside the person's own, so both isolation paths are swept.
    const configFile = join(dir, "gateway.json");
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    config.limits = { ratePerSecond: 1_000_000, rateBurst: 1_000_000 };
    config.tools.mcpshared = { revisions: { default: { ...config.tools.mcpdemo.revisions.default, isolation: "shared" } } };
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const gateway = spawn(
      process.execPath,
      [join(ROOT, "dist/cli/hub_gateway.js"), "--config", join(dir, "gateway.json"), "--data-dir", join(dir, "hub-data"), "--port", String(gwPort)],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(gateway);
    const tool = spawn(
      process.execPath,
      [join(ROOT, "dist/cli/start_mcp.js"), "--app", join(ROOT, "fixtures/demo/app.ts"), "--host", "127.0.0.1", "--port", "0", "--ready-line"],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(tool);
    const toolUrl = JSON.parse(await waitForLine(tool, /\{"hubmcp":"ready"[^\n]*\}/)).url.replace(/\/$/, "");
    await waitForLine(gateway, /listening|ready/i);
    const gwUrl = `http://127.0.0.1:${gwPort}`;
    let crashed = "";
    for (const c of children) c.once("exit", (code, signal) => (crashed ||= `${c === gateway ? "hub_gateway" : "start_mcp"} exited (${code ?? signal})`));
    // Drain the children's output so a chatty log cannot block them.
    for (const c of children) c.stdout?.resume(), c.stderr?.resume();

    const random = makeRandom(Number(values.seed));
    const counts = new Map<FuzzTarget, Map<number, number>>();
    /** 5xx answers and failed requests by door, status and what was said: a count and one example each. */
    const problems = new Map<string, { count: number; example: string }>();
    const memory: string[] = [];
    let sent = 0;
    const sample = (): void => {
      const sessions = childrenOf(gateway.pid).reduce((sum, pid) => sum + rssKb(pid), 0);
      memory.push(
        `${sent}\tgateway ${(rssKb(gateway.pid) / 1024).toFixed(1)} MB\ttool sessions ${(sessions / 1024).toFixed(1)} MB\tstart_mcp ${(rssKb(tool.pid) / 1024).toFixed(1)} MB`,
      );
    };
    sample();
    const worker = async (): Promise<void> => {
      while (sent < TOTAL && !crashed) {
        sent++;
        if (sent % 10_000 === 0) sample();
        const r = damagedRequest(random, token);
        const { status, said } = await send(r.target === "tool-server" ? toolUrl : gwUrl, r);
        const byStatus = counts.get(r.target) ?? new Map<number, number>();
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        counts.set(r.target, byStatus);
        if (status >= 500 || status < 0) {
          const key = `${r.target} ${status} ${(said ?? "").replace(/"message":"[^"]*"/, "").slice(0, 100)}`;
          const seen = problems.get(key) ?? { count: 0, example: `${r.method} ${r.path} ${(r.body ?? Buffer.alloc(0)).toString("latin1").slice(0, 120)}` };
          seen.count++;
          problems.set(key, seen);
        }
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    sample();
    const seconds = (Date.now() - started) / 1000;
    console.log(`${sent} requests in ${seconds.toFixed(1)} s (seed ${values.seed})`);
    for (const [target, byStatus] of [...counts].sort()) {
      console.log(
        `  ${target.padEnd(14)} ${[...byStatus]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}:${n}`)
          .join(" ")}`,
      );
    }
    console.log("resident memory (after N requests):");
    for (const line of memory) console.log(`  ${line}`);
    const fiveCount = [...counts.values()].reduce((sum, m) => sum + [...m].filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0), 0);
    const failed = [...counts.values()].reduce((sum, m) => sum + (m.get(-1) ?? 0), 0);
    console.log(`5xx answers: ${fiveCount}; requests with no answer: ${failed}; crash: ${crashed || "none"}`);
    for (const [key, { count, example }] of problems) console.log(`  ${count} × ${key}\n      e.g. ${example}`);
    return fiveCount === 0 && !crashed ? 0 : 1;
  } finally {
    agent.destroy();
    for (const c of children) c.kill("SIGTERM");
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
