// A throwaway PostgreSQL cluster for the Postgres store specs: initdb + pg_ctl from the
// Debian packages, on a loopback port, under a temp dir only its OS user can read, one per
// test file, stopped and removed when the file's process exits. Postgres refuses to run as
// root, so as root (specs, CI) it runs as the `postgres` user. Without the binaries the
// specs skip with the reason shown, except in CI, where a missing postgres is a failure.
// `npm run bench` uses it too (the gateway hop's Postgres lanes), and destroys it when done.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./launcher-fixtures.ts";

const USER = "hubmcp";

function findBin(): string | undefined {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, "pg_ctl")) ? process.env.PG_BIN : undefined;
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(base, versions[0]!, "bin") : undefined;
}

const BIN = findBin();

/** Why no cluster can start here, or false when one can. */
export const POSTGRES_MISSING: string | false = BIN ? false : "PostgreSQL binaries not found (apt-get install postgresql, or set PG_BIN)";

/** Why the Postgres specs skip here, or false when they run. In CI they never skip. */
export const POSTGRES_SKIP: string | false = process.env.CI ? false : POSTGRES_MISSING;

export interface PostgresCluster {
  /** `postgres://hubmcp@127.0.0.1:PORT/postgres`: no password in it, pass `password`. */
  readonly url: string;
  readonly password: string;
  readonly port: number;
  /** The cluster's data directory (postmaster.pid names the server's process). */
  readonly dataDir: string;
  /** A new empty database; answers its URL (without the password). */
  database(): Promise<string>;
  /** Stops the server (fast shutdown), e.g. to see the store fail. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its files; the next postgresCluster() starts a new one. */
  destroy(): void;
}

let cluster: Promise<PostgresCluster> | undefined;

/** The file's cluster, started on first use. */
export function postgresCluster(): Promise<PostgresCluster> {
  return (cluster ??= startCluster());
}

async function startCluster(): Promise<PostgresCluster> {
  if (!BIN) throw new Error("PostgreSQL binaries not found, and CI is set: the Postgres store specs must run (install postgresql, or set PG_BIN)");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-pg-"));
  const password = randomBytes(12).toString("hex");
  writeFileSync(join(dir, "pw"), password, { mode: 0o600 });
  if (asRoot) {
    const [uid, gid] = ["-u", "-g"].map((flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim()));
    chownSync(dir, uid!, gid!);
    chownSync(join(dir, "pw"), uid!, gid!);
  }
  const run = (cmd: string, args: string[]): void => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(BIN, cmd), ...args]] : [join(BIN, cmd), args];
    const done = spawnSync(file, argv, { encoding: "utf8", timeout: 60_000 });
    if (done.status !== 0) throw new Error(`${cmd} failed: ${(done.stderr || done.stdout || "").slice(0, 500)}`);
  };
  const data = join(dir, "data");
  let stopped = true;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
    } catch {
      // Already gone.
    }
  };
  const cleanUp = (): void => {
    stopNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", cleanUp);
  // A test file stopped by a signal (the runner's timeout, Ctrl-C) fires no "exit": clean up, then die of it.
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanUp();
    process.kill(process.pid, signal);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, onSignal);
  run("initdb", [
    "-D",
    data,
    "-U",
    USER,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    `--pwfile=${join(dir, "pw")}`,
    "-E",
    "UTF8",
    "--no-sync",
    "--no-instructions",
  ]);
  const port = await freePort();
  const start = async (): Promise<void> => {
    run("pg_ctl", [
      "start",
      "-D",
      data,
      "-l",
      join(dir, "log"),
      "-w",
      "-s",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c fsync=off`,
    ]);
    stopped = false;
  };
  await start();
  const url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
  let n = 0;
  return {
    url,
    password,
    port,
    dataDir: data,
    async database() {
      const name = `t${process.pid}_${++n}`;
      const admin = new pg.Client({ host: "127.0.0.1", port, user: USER, database: "postgres", password });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://${USER}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      run("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-s"]);
      stopped = true;
    },
    start,
    destroy() {
      process.off("exit", cleanUp);
      for (const signal of ["SIGTERM", "SIGINT"] as const) process.off(signal, onSignal);
      cleanUp();
      cluster = undefined;
    },
  };
}
