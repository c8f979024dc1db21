// Round trips over a child's stdin/stdout, the way a desktop host talks to a local MCP
// server: newline-delimited JSON-RPC, a fixed number of requests in flight, each answer
// matched to its request by id.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { percentile } from "./load.ts";
import { INITIALIZE, PROTOCOL_VERSION } from "./requests.ts";

export interface StdioPlan {
  /** Requests kept in flight. */
  inFlight: number;
  warmupMs: number;
  durationMs: number;
  /** Run the MCP handshake first (a real server needs it; the echo does not care). */
  handshake: boolean;
}

export interface StdioResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU time of this (driving) process per round trip, warm-up included. */
  driverCpuUsPerReq: number;
}

const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const callLine = (id: number): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}\n`;
const isSum = (m: { result?: { content?: { text?: string }[]; isError?: boolean } }): boolean =>
  m.result?.content?.[0]?.text === "5" && m.result.isError === false;

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export function stdioLoad(command: string, args: string[], plan: StdioPlan): Promise<StdioResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr = (stderr + c).slice(-2000)));
    const started = new Map<number, number>();
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    let total = 0;
    let errors = 0;
    let nextId = 1;
    let warmupUntil = Infinity;
    let deadline = Infinity;
    let firstStart = Infinity;
    let lastEnd = 0;
    let cpu0 = 0;
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      child.kill("SIGKILL");
      reject(new Error(`${why}${stderr ? `: ${stderr.trim().split("\n").slice(-2).join(" / ")}` : ""}`));
    };
    const watchdog = setTimeout(() => fail("no answer over stdio"), 30_000 + plan.warmupMs + plan.durationMs);
    const send = (): void => {
      const id = nextId++;
      started.set(id, performance.now());
      child.stdin.write(callLine(id));
    };
    const finish = (): void => {
      clearTimeout(watchdog);
      child.stdin.end();
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      child.once("close", () => clearTimeout(killer));
      if (settled) return;
      settled = true;
      const sorted = latencies.slice(0, count).sort();
      const elapsed = lastEnd - firstStart;
      resolve({
        requests: count,
        rps: elapsed > 0 ? (count * 1000) / elapsed : 0,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        errors,
        driverCpuUsPerReq: total > 0 ? ((cpuMs() - cpu0) * 1000) / total : NaN,
      });
    };
    const begin = (): void => {
      cpu0 = cpuMs();
      warmupUntil = performance.now() + plan.warmupMs;
      deadline = warmupUntil + plan.durationMs;
      for (let i = 0; i < plan.inFlight; i++) send();
    };
    const onMessage = (message: { id?: unknown; result?: { content?: { text?: string }[]; isError?: boolean } }): void => {
      if (message.id === "init") {
        child.stdin.write(`${INITIALIZED}\n`);
        return begin();
      }
      if (typeof message.id !== "number") return;
      const t0 = started.get(message.id);
      if (t0 === undefined) return;
      started.delete(message.id);
      const t1 = performance.now();
      total++;
      if (t0 >= warmupUntil && t1 <= deadline) {
        if (!isSum(message)) errors++;
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = t1 - t0;
        if (t0 < firstStart) firstStart = t0;
        lastEnd = t1;
      }
      if (t1 < deadline) send();
      else if (started.size === 0) finish();
    };
    let pending = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return fail("the server wrote a line to stdout that is not JSON");
        }
        onMessage(message as Parameters<typeof onMessage>[0]);
      }
    });
    child.once("error", (err) => fail(err.message));
    child.once("close", (code) => fail(`the server exited (code ${code})`));
    if (plan.handshake) {
      const init = JSON.parse(INITIALIZE) as Record<string, unknown>;
      child.stdin.write(`${JSON.stringify({ ...init, id: "init", params: { ...(init.params as object), protocolVersion: PROTOCOL_VERSION } })}\n`);
    } else begin();
  });
}
