// `slurm` revisions against a real one-node Slurm cluster (spec/helpers/slurm.ts): each tool
// session is a batch job running start_mcp, visible in squeue while the session lives, taken
// down with it (idle stop, gateway SIGTERM), replaced after it ends on its own, cancelled
// and answered 504 when it stays pending, closed to requests without the session secret, and
// never trusted on a ready line its account wrote itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../../lib/gateway/server.ts";
import { FileRecordStore } from "../../lib/gateway/store/file-record-store.ts";
import type { ToolSessionRecord } from "../../lib/gateway/tool-sessions/records.ts";
import { LIB_INDEX, ROOT, tempDir } from "../helpers/launcher-fixtures.ts";
import { IS_ROOT } from "../helpers/os-user.ts";
import { failingSqueue, slurmCluster, squeueState } from "../helpers/slurm.ts";
import { HUB_GATEWAY } from "./cli/hub-process.ts";
import { json, post, rpc, startHarness } from "./helpers.ts";

type After = { after(fn: () => unknown): void };

/** A folder every account may pass through, as a shared cluster folder is. */
function sharedDir(t: After, mode = 0o711): string {
  const dir = tempDir(t, "hubmcp-slurmgw-");
  chmodSync(dir, mode);
  return dir;
}

function app(t: After): string {
  const path = join(sharedDir(t, 0o755), "app.mjs");
  writeFileSync(
    path,
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
export const server = new McpServer("on-slurm", { closeTimeoutMs: 1000 });
server.tool(function where() { return JSON.stringify({ job: process.env.SLURM_JOB_ID, uid: process.getuid(), secretFile: process.env.HUBMCP_SECRET_FILE ?? null, state: process.env.HUBMCP_STATE_DIR }); });
`,
  );
  return path;
}

/** Bounded wait for a state only a command reports (squeue). */
async function until(what: string, ready: () => boolean): Promise<void> {
  const end = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(base: string, token: string): Promise<{ status: number; body: any }> {
  const res = await post(`${base}/api/mcp/sim/mcp`, token, rpc("tools/call", { name: "where", arguments: {} }));
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

const slurmTool = (appPath: string, workdir: string, partition: string, sbatch: string[] = []) => ({
  sim: { revisions: { default: { slurm: { app: appPath, workdir, partition, time: "00:10:00", sbatch } } } },
});

test("tool sessions as Slurm jobs on a real cluster", { skip: !IS_ROOT && "needs root to act as other accounts", timeout: 300_000 }, async (t) => {
  // Each subtest stops its gateways (and so their jobs) in its own after hooks, before the cluster stops.
  const cluster = await slurmCluster(t);
  if (!cluster) return;
  // The sessions' jobs run as nobody: the cluster's config and munge socket must be reachable by it.
  if (cluster.dir) chmodSync(cluster.dir, 0o711);
  const appPath = app(t);

  await t.test("a call runs in a job that lives as long as the session; no secret, no answer; scancel costs one 502", async (st) => {
    const workdir = sharedDir(t);
    const h = await startHarness(st, { tools: slurmTool(appPath, workdir, cluster.partition) });
    const first = await call(h.base, h.tokens.alice);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const seen = JSON.parse(first.body.result.content[0].text);
    const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    assert.equal(seen.job, rec.jobId, "the store names the job that answered");
    assert.equal(seen.uid, Number(spawnSync("id", ["-u", "nobody"], { encoding: "utf8" }).stdout.trim()));
    assert.equal(seen.secretFile, null, "the secret file's path is gone from the server's environment");
    assert.equal(squeueState(rec.jobId!), "RUNNING");
    assert.equal(new URL(rec.url!).hostname, "127.0.0.1", "bound to the node's address");
    assert.equal(dirname(dirname(seen.state)), workdir);
    assert.match(basename(dirname(seen.state)), /^\.hubmcp-state-\w{6}$/);
    assert.equal(statSync(seen.state).uid, seen.uid, "the state directory is the session account's");

    // Another replica on the same store forwards to the job this one submitted.
    const replica = await startGateway({
      config: parseGatewayConfig({ tools: slurmTool(appPath, workdir, cluster.partition) }, workdir),
      store: h.store,
      log: () => {},
    });
    const via = await call(replica.url.slice(0, -1), h.tokens.alice);
    await replica.close();
    assert.equal(JSON.parse(via.body.result.content[0].text).job, rec.jobId);

    // The job's port, found by anyone on the cluster network, answers nothing without the secret.
    const bare = await fetch(`${rec.url}mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: rpc("tools/call", { name: "where", arguments: {} }),
    });
    assert.equal(bare.status, 401);
    const guessed = await fetch(`${rec.url}mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        cookie: "hubmcp-secret=guessed-secret-guessed-secret-guessed",
      },
      body: rpc("tools/call", { name: "where", arguments: {} }),
    });
    assert.equal(guessed.status, 401);

    // An admin's scancel: one 502, then a new job.
    spawnSync("scancel", [rec.jobId!], { env: process.env });
    await until("the job to leave squeue", () => squeueState(rec.jobId!) === null);
    await h.waitForLog(/tool session crashed/);
    assert.equal((await call(h.base, h.tokens.alice)).status, 502);
    const again = await call(h.base, h.tokens.alice);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const next = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    assert.notEqual(next.jobId, rec.jobId);
    assert.equal(JSON.parse(again.body.result.content[0].text).job, next.jobId);
    assert.equal(JSON.parse(again.body.result.content[0].text).state, seen.state, "the new job keeps the state directory");
    assert.equal(squeueState(next.jobId!), "RUNNING");

    await h.gw.close();
    assert.equal(squeueState(next.jobId!), null, "the gateway's stop cancels its jobs");
  });

  await t.test("a job's forged ready line is refused: a port on the gateway's host, an address not its node's", async (st) => {
    // A service on the gateway's host that only the gateway's network position reaches.
    const seen: Array<{ method: string; cookie: boolean }> = [];
    const internal = createServer((req, res) => {
      seen.push({ method: req.method!, cookie: req.headers.cookie !== undefined });
      res.end('{"internal":"secret data"}');
    });
    await new Promise<void>((resolve) => internal.listen(0, "127.0.0.1", resolve));
    st.after(() => new Promise((resolve) => internal.close(resolve)));
    const port = (internal.address() as AddressInfo).port;
    // The job's account writes its own ready line into the job's output before the server's.
    const forging = (host: string): string => {
      const path = join(sharedDir(t, 0o755), "forge.mjs");
      const line = JSON.stringify({ hubmcp: "ready", url: `http://${host}:${port}/`, prefix: "" });
      writeFileSync(path, `process.stderr.write(${JSON.stringify(`${line}\n`)});\nexport * from ${JSON.stringify(appPath)};\n`);
      return path;
    };
    const workdir = sharedDir(t);
    const tools = {
      here: { revisions: { default: { slurm: { app: forging("127.0.0.1"), workdir, partition: cluster.partition } } } },
      away: { revisions: { default: { slurm: { app: forging("127.0.0.2"), workdir, partition: cluster.partition } } } },
    };
    const h = await startHarness(st, { tools });
    for (const [tool, why] of [
      ["here", /Slurm job \d+: the server at the job's ready address \(on localhost\) did not prove it is the session's: refused/],
      ["away", /Slurm job \d+: the job's ready line names an address that is not its node's \(localhost\): refused/],
    ] as const) {
      const res = await post(`${h.base}/api/mcp/${tool}/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: {} }));
      assert.equal(res.status, 502, await res.text());
      const line = await h.waitForLog(why);
      assert.doesNotMatch(line, new RegExp(`${port}`), "the forged address is not repeated");
      assert.equal(squeueState(/Slurm job (\d+)/.exec(line)![1]!), null, "the job is cancelled");
    }
    assert.deepEqual(seen, [{ method: "GET", cookie: false }], "only the challenge reached the service: no request, no secret");
  });

  await t.test("a rappture revision as a Slurm job: start_mcp --rappture runs in the job and the program on the node", async (st) => {
    const workdir = sharedDir(t);
    const folder = sharedDir(t, 0o755);
    for (const name of ["tool.xml", "fermi.py"]) writeFileSync(join(folder, name), readFileSync(join(ROOT, "fixtures/rappture/fermi", name)));
    const tools = {
      fermi: { revisions: { default: { slurm: { rappture: join(folder, "tool.xml"), workdir, partition: cluster.partition, time: "00:10:00" } } } },
    };
    const h = await startHarness(st, { tools });
    const ask = async (method: string, params: Record<string, unknown>) => {
      const res = await post(`${h.base}/api/mcp/fermi/mcp`, h.tokens.alice, rpc(method, params));
      assert.equal(res.status, 200);
      return (await json(res)).result;
    };
    const { tools: listed } = await ask("tools/list", {});
    assert.ok(listed.some((x: { name: string }) => x.name === "fermi"));
    const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nfermi\ndefault"))!;
    assert.equal(squeueState(rec.jobId!), "RUNNING", "the session is the batch job");
    let job = JSON.parse((await ask("tools/call", { name: "fermi", arguments: { points: 10 } })).content[0].text);
    while (job.status === "running") {
      await new Promise((r) => setTimeout(r, 100)); // jobs are polled
      job = JSON.parse((await ask("tools/call", { name: "get_job_result", arguments: { job_id: job.job_id } })).content[0].text);
    }
    assert.equal(job.status, "done", JSON.stringify(job));
    assert.equal(job.result.f.points.length, 10);
  });

  await t.test("a sticky workdir where another account made .hubmcp-state first still starts sessions", async (st) => {
    const workdir = sharedDir(t, 0o1777);
    execFileSync("runuser", ["-u", "nobody", "--", "mkdir", "-m", "0777", join(workdir, ".hubmcp-state")]);
    const h = await startHarness(st, { tools: slurmTool(appPath, workdir, cluster.partition) });
    const res = await call(h.base, h.tokens.alice);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const state = JSON.parse(res.body.result.content[0].text).state as string;
    assert.equal(dirname(dirname(state)), workdir);
    assert.notEqual(dirname(state), join(workdir, ".hubmcp-state"));
  });

  await t.test("a failing squeue is 'ask again', never 'job gone': the session and its job live on", async (st) => {
    const squeue = failingSqueue(sharedDir(t, 0o755));
    const h = await startHarness(st, { tools: slurmTool(appPath, sharedDir(t), cluster.partition) }, { childEnv: { ...process.env, PATH: squeue.path } });
    const first = await call(h.base, h.tokens.alice);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    // Two whole looks of the session's watch, each asking squeue three times.
    squeue.failing(true);
    await squeue.failedAtLeast(6);
    const during = await call(h.base, h.tokens.alice);
    assert.equal(during.status, 200, JSON.stringify(during.body));
    assert.equal(JSON.parse(during.body.result.content[0].text).job, rec.jobId, "the same job still serves the session");
    squeue.failing(false);
    assert.equal(squeueState(rec.jobId!), "RUNNING");
    const after = await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault");
    assert.deepEqual([after?.jobId, after?.state], [rec.jobId, "ready"], "not taken for crashed");
  });

  await t.test("a job still pending past startSeconds is cancelled and answered 504 with the scheduler's reason logged", async (st) => {
    const workdir = sharedDir(t);
    const h = await startHarness(st, { tools: slurmTool(appPath, workdir, cluster.partition, ["--hold"]), limits: { startSeconds: 2 } });
    const res = await call(h.base, h.tokens.alice);
    assert.equal(res.status, 504);
    const line = await h.waitForLog(/still pending/);
    assert.match(line, /reason JobHeldUser/);
    const jobId = /Slurm job (\d+)/.exec(line)![1]!;
    assert.equal(squeueState(jobId), null, "cancelled");
    assert.equal(await h.store.get("tool-sessions", "alice\nsim\ndefault"), undefined);
  });

  await t.test("a job Slurm refuses, or whose server fails to start, is a 502 with the reason logged", async (st) => {
    const broken = join(sharedDir(t, 0o755), "broken.mjs");
    writeFileSync(broken, `throw new Error("no such model");\n`);
    const workdir = sharedDir(t);
    const open = sharedDir(t, 0o777);
    const tools = {
      open: { revisions: { default: { slurm: { app: appPath, workdir: open, partition: cluster.partition } } } },
      refused: { revisions: { default: { slurm: { app: appPath, workdir, partition: "no-such-partition" } } } },
      broken: { revisions: { default: { slurm: { app: broken, workdir, partition: cluster.partition } } } },
    };
    const h = await startHarness(st, { tools });
    const unsafe = await post(`${h.base}/api/mcp/open/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: {} }));
    assert.equal(unsafe.status, 502);
    await h.waitForLog(/writable by every account without the sticky bit/);
    assert.deepEqual(readdirSync(open), [], "nothing made there");
    const refused = await post(`${h.base}/api/mcp/refused/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: {} }));
    assert.equal(refused.status, 502);
    await h.waitForLog(/sbatch refused the tool session's job/);
    const failed = await post(`${h.base}/api/mcp/broken/mcp`, h.tokens.alice, rpc("tools/call", { name: "where", arguments: {} }));
    assert.equal(failed.status, 502);
    await h.waitForLog(/no such model/);
    assert.deepEqual(
      readdirSync(workdir).filter((n) => n.startsWith(".hubmcp-session-")),
      [],
      "their session folders are gone",
    );
  });

  await t.test("an idle session's job is cancelled", async (st) => {
    const workdir = sharedDir(t);
    const h = await startHarness(st, { tools: slurmTool(appPath, workdir, cluster.partition), limits: { idleMinutes: 0.02 } });
    assert.equal((await call(h.base, h.tokens.alice)).status, 200);
    const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    await h.waitForLog(/tool session idle; stopping/);
    await until("the idle job to leave squeue", () => squeueState(rec.jobId!) === null);
  });

  await t.test("DELETE of the session cancels its job; the next request submits a new one", async (st) => {
    const workdir = sharedDir(t);
    const h = await startHarness(st, { tools: slurmTool(appPath, workdir, cluster.partition) });
    const mcp = `${h.base}/api/mcp/sim/mcp`;
    const init = await post(
      mcp,
      h.tokens.alice,
      rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spec", version: "1" } }),
    );
    await init.text();
    const session = init.headers.get("mcp-session-id")!;
    const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    assert.equal(squeueState(rec.jobId!), "RUNNING");
    const ended = await fetch(mcp, { method: "DELETE", headers: { authorization: `Bearer ${h.tokens.alice}`, "mcp-session-id": session } });
    assert.ok(ended.status < 300, `DELETE answered ${ended.status}`);
    await ended.arrayBuffer();
    await until("the deleted session's job to leave squeue", () => squeueState(rec.jobId!) === null);
    assert.equal((await call(h.base, h.tokens.alice)).status, 200);
    const next = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\nsim\ndefault"))!;
    assert.notEqual(next.jobId, rec.jobId);
  });

  await t.test("SIGTERM of hub_gateway leaves no job behind", async (st) => {
    const base = sharedDir(t, 0o755);
    const dataDir = join(base, "data");
    const store = await FileRecordStore.open(dataDir);
    const accounts = new StoreAccountDirectory(store);
    await accounts.add("alice", "pw", ["users"]);
    const token = (await new ApiTokens(store, accounts).create("alice"))!.token;
    const config = join(base, "gateway.json");
    writeFileSync(config, JSON.stringify({ tools: slurmTool(appPath, sharedDir(t), cluster.partition), oauth: false }));
    const child = spawn(HUB_GATEWAY[0]!, [...HUB_GATEWAY.slice(1), "--config", config, "--data-dir", dataDir, "--port", "0"], {
      env: { ...process.env, NODE_V8_COVERAGE: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("close", resolve));
    st.after(() => (child.exitCode === null ? (child.kill("SIGTERM"), exited) : undefined));
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        const m = /ready at (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`hub_gateway exited:\n${err.slice(-2000)}`)));
    });
    const res = await call(url.replace(/\/$/, ""), token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const jobId = JSON.parse(res.body.result.content[0].text).job as string;
    assert.equal(squeueState(jobId), "RUNNING");
    child.kill("SIGTERM");
    await exited;
    assert.equal(squeueState(jobId), null, err.slice(-3000));
  });
});
