// The gateway hop's Postgres lanes: the same gateway on a PostgreSQL store, lookup cache on
// and off, and cached with the rate limit per process (what counting it in the database costs), in front of the same tool server as the file-store lanes. The cluster is the
// specs' throwaway one (initdb + pg_ctl on a loopback port, fsync off), started here and
// destroyed when the phase ends. Its password reaches the gateway children through
// HUBMCP_STORE_PASSWORD, never their argv.
import { readFileSync } from "node:fs";
import { ApiTokens, PostgresRecordStore, StoreAccountDirectory } from "../../lib/gateway/index.ts";
import type { RecordStore } from "../../lib/gateway/index.ts";
import { POSTGRES_MISSING, postgresCluster } from "../../spec/helpers/postgres.ts";
import type { ServerChild, Servers } from "../child.ts";

export interface PostgresGateways {
  cached: ServerChild;
  uncached: ServerChild;
  /** Cached, with the per-person rate limit per process instead of in the database. */
  localLimit: ServerChild;
  bearer: Record<string, string>;
  /** CPU ms the Postgres server (postmaster and its backends, live and exited) has used so far. */
  databaseCpuMs(): number;
  stop(): Promise<void>;
}

/** The bench user and an API token in `store`, as startStack makes them in the file store; answers the bearer header. */
export async function addBenchUser(store: RecordStore): Promise<Record<string, string>> {
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("bench", "bench-password-unused");
  const { token } = (await new ApiTokens(store, accounts).create("bench"))!;
  return { authorization: `Bearer ${token}` };
}

const TICKS_PER_SECOND = 100;

/** utime + stime (+ cutime + cstime with `reaped`) of a process, in ms; 0 once it is gone. */
function processCpuMs(pid: number, reaped: boolean): number {
  try {
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
    return ((utime! + stime! + (reaped ? cutime! + cstime! : 0)) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function clusterCpuMs(dataDir: string): number {
  const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // A kernel without the children file: the backends are counted once they exit.
  }
  return processCpuMs(pid, true) + children.reduce((sum, child) => sum + processCpuMs(child, false), 0);
}

/** The two Postgres gateways, or why they cannot run here. */
export async function startPostgresGateways(servers: Servers, toolPort: number): Promise<PostgresGateways | string> {
  if (POSTGRES_MISSING) return POSTGRES_MISSING;
  const cluster = await postgresCluster();
  const started: ServerChild[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((s) => s.stop()));
    cluster.destroy();
  };
  try {
    const url = await cluster.database();
    const store = await PostgresRecordStore.open({ url, password: cluster.password });
    let bearer: Record<string, string>;
    try {
      bearer = await addBenchUser(store);
    } finally {
      await store.close();
    }
    const env = { HUBMCP_STORE_PASSWORD: cluster.password };
    const upstream = `http://127.0.0.1:${toolPort}/`;
    const cached = await servers.start("gateway", { args: [url, upstream, "cached"], env });
    started.push(cached);
    const uncached = await servers.start("gateway", { args: [url, upstream, "uncached"], env });
    started.push(uncached);
    const localLimit = await servers.start("gateway", { args: [url, upstream, "local-limit"], env });
    started.push(localLimit);
    return { cached, uncached, localLimit, bearer, databaseCpuMs: () => clusterCpuMs(cluster.dataDir), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
