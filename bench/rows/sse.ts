// SSE fan-out: many legacy `GET /sse` clients, and the time one session-less POST takes to
// reach every one of them as an `event: message` (the broadcast rule), for the bare
// node:http baseline and for hubmcp.
import { execFileSync } from "node:child_process";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import type { ServerChild, Servers } from "../child.ts";
import { percentile } from "../load.ts";
import { CALL_ADD } from "../requests.ts";
import type { Row } from "../row.ts";
import { SseClients } from "../sse-clients.ts";
import { atMost, TARGETS } from "../targets.ts";

function trigger(agent: Agent, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(CALL_ADD)) };
    const req = request({ agent, host: "127.0.0.1", port, path: "/mcp", method: "POST", headers }, (res) => {
      res.resume();
      res.once("end", resolve);
    });
    req.once("error", reject);
    req.end(CALL_ADD);
  });
}

interface FanOut {
  times: Float64Array;
  connectMs: number;
  rssMb: number;
}

async function fanOut(server: ServerChild, clients: number, rounds: number): Promise<FanOut> {
  const t0 = performance.now();
  const pool = await SseClients.open(server.port, clients);
  const connectMs = performance.now() - t0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const times = new Float64Array(rounds);
    // Round 1 warms up both ends and is not kept.
    for (let round = 1; round <= rounds + 1; round++) {
      const reached = pool.allReached(round);
      const start = performance.now();
      await Promise.all([trigger(agent, server.port), reached]);
      if (round > 1) times[round - 2] = performance.now() - start;
    }
    times.sort();
    return { times, connectMs, rssMb: (await server.stats()).rssMb };
  } finally {
    agent.destroy();
    pool.close();
  }
}

async function measure(servers: Servers, kind: "baseline" | "hubmcp", clients: number, rounds: number): Promise<FanOut> {
  const server = await servers.start(kind);
  try {
    return await fanOut(server, clients, rounds);
  } finally {
    await server.stop();
  }
}

/** The open-file limit this process (and the server child, which inherits it) runs under. */
function fileLimit(): number {
  try {
    const out = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
    return out === "unlimited" ? Infinity : Number(out);
  } catch {
    return Infinity;
  }
}

export async function sseRows(servers: Servers, clients: number, rounds: number): Promise<Row[]> {
  // Each client holds one descriptor here and one in the server; leave room for the rest.
  const limit = fileLimit();
  if (limit < clients + 256) {
    const why = `ulimit -n is ${limit}, too low for ${clients} SSE clients; raise it (e.g. \`ulimit -n ${clients * 2 + 1024}\`) and run again`;
    return [
      {
        name: `SSE broadcast to ${clients.toLocaleString("en-US")} clients`,
        result: "not run",
        note: why,
        checks: [{ target: "row measured", measured: "not run", pass: false }],
      },
    ];
  }
  const base = await measure(servers, "baseline", clients, rounds);
  const hub = await measure(servers, "hubmcp", clients, rounds);
  const label = `SSE broadcast to ${clients.toLocaleString("en-US")} clients`;
  const row = (name: string, f: FanOut): Row => ({
    name,
    p50Ms: percentile(f.times, 50),
    p99Ms: percentile(f.times, 100),
    rssMb: f.rssMb,
    result: `${percentile(f.times, 50).toFixed(1)} ms`,
    note: `median and worst of ${rounds} broadcasts (p99 column shows the worst); clients connected in ${Math.round(f.connectMs)} ms`,
    checks: [],
  });
  const baseRow = row(`baseline: ${label}`, base);
  const hubRow = row(label, hub);
  baseRow.ratio = 1;
  hubRow.ratio = baseRow.p50Ms! / hubRow.p50Ms!;
  hubRow.checks.push(atMost("broadcast", { value: hubRow.p50Ms!, digits: 1, unit: " ms" }, TARGETS.broadcastMs));
  return [baseRow, hubRow];
}
