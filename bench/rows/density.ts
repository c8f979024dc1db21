// Density rows (issue 24): how many people one machine serves with the demo `.ts` app behind
// the gateway. The gateway runs from the built package (so its tool sessions are the built
// start_mcp, as installed), in its own process, with N people holding an API token each; the figures are read from /proc for the gateway's whole process tree.
//  - "shared": N people each open a session and make one call on one shared revision; the
//    tree's RSS and PSS, then tools/call p99 at a fixed 500 calls/s spread over the people.
//  - "process": one person's idle tool session (the child alone): RSS (anonymous and
//    file-backed), PSS and private memory, against a bare node:http server's started with
//    the same Node flags in the same run.
// The demo app is copied into the package folder with `import ... from "hubmcp"`, as a
// deployed tool imports it, so it runs on the gateway's copy of the library: the repository's
// copy imports ../../lib/index.ts, which the built package would load a second time.
import { execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, type BuiltPackage } from "../build.ts";
import { percentile } from "../load.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";
import { LEAN_SESSION_FLAGS } from "../../lib/gateway/backends/index.ts";

const MCP = "/api/mcp/demo/mcp";
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
const GB24_MB = 24 * 1024;
const KB = 1024;

/**
 * Memory of one process from /proc, in MB: resident (anonymous, and file-backed: mostly the
 * node binary's pages, which every Node process maps), proportional (shared pages split)
 * and private.
 */
interface Mem {
  rss: number;
  anon: number;
  file: number;
  pss: number;
  priv: number;
}

function memOf(pid: number): Mem {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) / KB;
  return {
    rss: field(status, "VmRSS"),
    anon: field(status, "RssAnon"),
    file: field(status, "RssFile") + field(status, "RssShmem"),
    pss: field(rollup, "Pss"),
    priv: field(rollup, "Private_Clean") + field(rollup, "Private_Dirty"),
  };
}

/**
 * The demo app as a deployed tool: beside the built package, importing "hubmcp" (which
 * start_mcp points at the running copy), with the repository's node_modules for the
 * TypeScript compiler.
 */
function deployedDemo(pkg: BuiltPackage): string {
  const dir = join(pkg.dir, "demo-app");
  mkdirSync(dir, { recursive: true });
  const source = (name: string): string => readFileSync(join(ROOT, "fixtures", "demo", name), "utf8");
  writeFileSync(join(dir, "app.ts"), source("app.ts").replace(/from "\.\.\/\.\.\/lib\/index\.ts"/, 'from "hubmcp"'));
  writeFileSync(join(dir, "plot-page.ts"), source("plot-page.ts"));
  try {
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err; // made by the other density row
  }
  return join(dir, "app.ts");
}

/** `pid` and every process below it. */
function tree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    out.push(p);
    for (const child of parents.get(p) ?? []) walk(child);
  };
  walk(pid);
  return out;
}

function sum(pids: number[]): Mem {
  const total = { rss: 0, anon: 0, file: 0, pss: 0, priv: 0 };
  for (const pid of pids) {
    try {
      const m = memOf(pid);
      for (const key of Object.keys(total) as Array<keyof Mem>) total[key] += m[key];
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

interface Gateway {
  child: ChildProcess;
  port: number;
  tokens: string[];
  stop(): Promise<void>;
}

/**
 * The built gateway in its own process, on a memory store holding `people` accounts (one
 * scrypt hash, copied) with an API token each: a data dir on disk takes minutes to fill.
 */
async function startGateway(pkg: BuiltPackage, people: number, isolation: "shared" | "process"): Promise<Gateway> {
  // Tool sessions run as another account when the bench runs as root: the built package must be readable to it.
  chmodSync(pkg.dir, 0o755);
  const script = join(pkg.dir, "density-gateway.mjs");
  writeFileSync(
    script,
    `import { ApiTokens, MemoryRecordStore, StoreAccountDirectory, parseGatewayConfig, startGateway } from "./dist/lib/gateway/index.js";
const [app, isolation, people] = process.argv.slice(2);
const store = new MemoryRecordStore();
const accounts = new StoreAccountDirectory(store);
const issuer = new ApiTokens(store, accounts);
await accounts.add("p0", "unused-password");
const record = await store.get("accounts", "p0");
const tokens = [];
for (let i = 0; i < Number(people); i++) {
  if (i > 0) await store.put("accounts", "p" + i, { ...record, user: "p" + i });
  tokens.push((await issuer.create("p" + i)).token);
}
const config = parseGatewayConfig({
  tools: { demo: { revisions: { default: { app, isolation } } } },
  limits: { ratePerSecond: 1e9, rateBurst: 1e9, sessionsTotal: Number(people) + 10, maxConnections: 10000 },
}, ".");
const gateway = await startGateway({ config, store });
process.send({ port: gateway.port, tokens });
process.on("message", () => void gateway.close().then(() => process.exit(0)));
`,
  );
  const child = fork(script, [deployedDemo(pkg), isolation, String(people)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const { port, tokens } = await new Promise<{ port: number; tokens: string[] }>((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the density gateway exited (code ${code})`)));
  });
  return {
    child,
    port,
    tokens,
    stop: async () => {
      const exited = new Promise((done) => child.once("exit", done));
      child.send("stop");
      await Promise.race([exited, sleep(10_000)]);
      child.kill("SIGKILL");
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One POST to the gateway; resolves with the status, the session id it names, and the time taken. */
function post(port: number, token: string, body: string, session?: string): Promise<{ status: number; session?: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    if (session) headers["mcp-session-id"] = session;
    const req = request({ agent, host: "127.0.0.1", port, method: "POST", path: MCP, headers }, (res) => {
      res.resume();
      res.once("end", () => resolve({ status: res.statusCode ?? 0, session: res.headers["mcp-session-id"] as string | undefined, ms: performance.now() - t0 }));
    });
    req.once("error", reject);
    req.end(body);
  });
}

/** Runs `work` on every item, `width` at a time. */
async function pool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

/**
 * tools/call at 500 calls/s for `seconds`, open loop: each 10 ms tick sends 5 calls, each in
 * the next person's session, whatever is still running.
 */
async function atRate(gw: Gateway, sessions: string[], seconds: number): Promise<{ latencies: number[]; errors: number; rate: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const running: Promise<void>[] = [];
  const start = performance.now();
  for (let tick = 0, k = 0; tick < seconds * 100; tick++) {
    for (let j = 0; j < 5; j++, k++) {
      const i = k % sessions.length;
      running.push(
        post(gw.port, gw.tokens[i]!, CALL, sessions[i]).then(
          (r) => (r.status === 200 ? void latencies.push(r.ms) : void errors++),
          () => void errors++,
        ),
      );
    }
    const wait = start + (tick + 1) * 10 - performance.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(running);
  return { latencies, errors, rate: (latencies.length + errors) / ((performance.now() - start) / 1000) };
}

export async function sharedDensityRow(pkg: BuiltPackage, people: number, quick: boolean): Promise<Row[]> {
  const gw = await startGateway(pkg, people, "shared");
  try {
    const sessions: string[] = new Array(people);
    let failed = 0;
    const open = async (token: string, i: number): Promise<void> => {
      const init = await post(gw.port, token, INIT);
      if (init.status !== 200 || !init.session) return void failed++;
      sessions[i] = init.session;
      await post(gw.port, token, INITIALIZED, init.session);
      if ((await post(gw.port, token, CALL, init.session)).status !== 200) failed++;
    };
    await open(gw.tokens[0]!, 0);
    await sleep(1000);
    const one = sum(tree(gw.child.pid!));
    const t0 = performance.now();
    await pool(gw.tokens.slice(1), 32, (token, i) => open(token, i + 1));
    const openS = (performance.now() - t0) / 1000;
    await sleep(1000);
    const pids = tree(gw.child.pid!);
    const all = sum(pids);
    const seconds = quick ? 4 : 10;
    await atRate(gw, sessions, 1);
    const { latencies, errors, rate } = await atRate(gw, sessions, seconds);
    const sorted = Float64Array.from(latencies).sort();
    const p99 = percentile(sorted, 99);
    const perPerson = (all.pss - one.pss) / (people - 1);
    const fits = Math.floor((GB24_MB - one.pss) / perPerson);
    const row: Row = {
      name: `shared demo revision: ${people.toLocaleString("en-US")} people, a session and a call each`,
      rps: rate,
      p50Ms: percentile(sorted, 50),
      p99Ms: p99,
      rssMb: all.rss,
      result: `gateway tree ${all.rss.toFixed(0)} MB RSS, ${all.pss.toFixed(0)} MB PSS (${pids.length} processes)`,
      note:
        `tree with one person ${one.rss.toFixed(0)} MB RSS / ${one.pss.toFixed(0)} MB PSS; ${people} sessions opened in ${openS.toFixed(1)} s; ` +
        `+${(perPerson * 1024).toFixed(0)} KB PSS per person → ~${fits.toLocaleString("en-US")} people in 24 GB (memory alone); ` +
        `p50/p99 are tools/call at a fixed ${rate.toFixed(0)} calls/s over ${seconds} s after 1 s of the same, each call another person's session`,
      checks: [
        atMost("gateway tree RSS", { value: all.rss, digits: 0, unit: " MB" }, TARGETS.sharedTreeMb),
        atMost("tools/call p99 at 500 calls/s", { value: p99, digits: 1, unit: " ms" }, TARGETS.sharedP99Ms),
      ],
    };
    if (failed + errors > 0) row.checks.push({ target: "no failed requests", measured: `${failed + errors} failed`, pass: false });
    return [row];
  } finally {
    await gw.stop();
  }
}

/** A bare node:http server in its own process, with the tool sessions' Node flags: the floor of a Node process's memory here. */
async function bareNode(): Promise<Mem> {
  const server = "require('http').createServer((q,s)=>s.end()).listen(0,'127.0.0.1',()=>console.log('up'))";
  const child = spawn(process.execPath, [...LEAN_SESSION_FLAGS, "-e", server], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise((resolve) => child.stdout!.once("data", resolve));
    await sleep(1000);
    return memOf(child.pid!);
  } finally {
    child.kill();
  }
}

const shown = (m: Mem): string =>
  `${m.rss.toFixed(1)} MB RSS (${m.anon.toFixed(1)} anonymous + ${m.file.toFixed(1)} file-backed), ${m.pss.toFixed(1)} MB PSS, ${m.priv.toFixed(1)} MB private`;

export async function processSessionRow(pkg: BuiltPackage): Promise<Row[]> {
  const gw = await startGateway(pkg, 1, "process");
  try {
    const init = await post(gw.port, gw.tokens[0]!, INIT);
    if (init.status !== 200) throw new Error(`initialize through the gateway failed: HTTP ${init.status}`);
    await post(gw.port, gw.tokens[0]!, INITIALIZED, init.session);
    await post(gw.port, gw.tokens[0]!, CALL, init.session);
    await sleep(2000);
    const children = tree(gw.child.pid!).slice(1);
    const session = sum(children);
    const bare = await bareNode();
    const gateway = memOf(gw.child.pid!);
    const fits = Math.floor((GB24_MB - gateway.pss) / session.priv);
    return [
      {
        name: "process demo revision: one idle tool session",
        rssMb: session.rss,
        result: shown(session),
        note:
          `the tool session alone (${children.length} process${children.length === 1 ? "" : "es"}: start_mcp with ${LEAN_SESSION_FLAGS.join(" ")}), after initialize and one call; ` +
          `a bare node:http server with the same flags: ${shown(bare)}; ` +
          `a person costs their session's private memory → ~${fits.toLocaleString("en-US")} people in 24 GB (memory alone; ${execFileSync("nproc").toString().trim()} cores here)`,
        checks: [
          atMost("RSS of an idle tool session", { value: session.rss, digits: 1, unit: " MB" }, TARGETS.processSessionMb),
          atMost("private memory of an idle tool session (proposed bound)", { value: session.priv, digits: 1, unit: " MB" }, TARGETS.processSessionPrivateMb),
        ],
      },
    ];
  } finally {
    await gw.stop();
  }
}
