// Parent side of ./server-child.ts: starts a server under test in its own process and
// reads its memory and CPU time.
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import type { ChildMessage, ChildRequest } from "./server-child.ts";
import type { ServerKind } from "./servers/types.ts";

export interface Stats {
  rssMb: number;
  /** The most RSS the process has held so far. */
  peakRssMb: number;
  /** Live JavaScript objects. */
  heapUsedMb: number;
  /** Heap pages V8 holds, live or not. */
  heapTotalMb: number;
  /** Of which the young generation (new space). */
  newSpaceMb: number;
  /** Buffers and other memory outside the heap. */
  externalMb: number;
  cpuMs: number;
  /** The part of cpuMs spent in the kernel (system calls, the loopback network). */
  systemMs: number;
  /** Young-generation collections so far. */
  scavenges: number;
  /** Full (mark-compact) collections so far. */
  fullGcs: number;
  /** Time in collections so far, pauses and incremental steps. */
  gcMs: number;
  /** Page faults served without I/O so far: fresh memory touched for the first time. */
  minorPageFaults: number;
  sessions: number | null;
}

export interface ServerChild {
  readonly port: number;
  /** Memory and CPU time now; with `gc`, after a full collection. */
  stats(gc?: boolean): Promise<Stats>;
  /** Turns a "toggled" gateway's tracing on or off. */
  setTracing(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface ChildOptions {
  /** The compiled server-child script (see ./compile.ts). */
  entry: string;
  /** Directory for a V8 CPU profile of the child (`node --cpu-prof`). */
  cpuProfDir?: string;
  /** Extra Node flags for the child, e.g. ["--max-semi-space-size=4"]. */
  nodeFlags?: string[];
  /** Arguments for the server after its kind (see ./server-child.ts). */
  args?: string[];
  /** Variables added to the child's environment (secrets go here, never in args: they show in `ps`). */
  env?: Record<string, string>;
}

const MB = 1024 * 1024;

function nextMessage(child: ChildProcess): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`bench server exited early (code ${code})`));
    child.once("exit", onExit);
    child.once("message", (m: ChildMessage) => {
      child.off("exit", onExit);
      resolve(m);
    });
  });
}

export async function startServer(kind: ServerKind, options: ChildOptions): Promise<ServerChild> {
  const execArgv = ["--expose-gc", ...(options.nodeFlags ?? [])];
  if (options.cpuProfDir) {
    mkdirSync(options.cpuProfDir, { recursive: true });
    execArgv.push("--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`, `--cpu-prof-name=${kind}-${Date.now()}.cpuprofile`);
  }
  const child = fork(options.entry, [kind, ...(options.args ?? [])], {
    execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, ...options.env },
  });
  const first = await nextMessage(child);
  if (first.type !== "listening") throw new Error("bench server did not report its port");
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // One request at a time: the answers carry no id.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (request: ChildRequest): Promise<ChildMessage> => {
    const next = queue.then(() => {
      const answer = nextMessage(child);
      child.send(request);
      return answer;
    });
    queue = next.catch(() => {});
    return next;
  };
  return {
    port: first.port,
    async stats(gc = false) {
      const m = await ask({ type: "stats", gc });
      if (m.type !== "stats") throw new Error("unexpected answer from bench server");
      return {
        rssMb: m.rssBytes / MB,
        peakRssMb: m.peakRssBytes / MB,
        heapUsedMb: m.heapUsedBytes / MB,
        heapTotalMb: m.heapTotalBytes / MB,
        newSpaceMb: m.newSpaceBytes / MB,
        externalMb: m.externalBytes / MB,
        cpuMs: m.cpuMs,
        systemMs: m.systemMs,
        scavenges: m.scavenges,
        fullGcs: m.fullGcs,
        gcMs: m.gcMs,
        minorPageFaults: m.minorPageFaults,
        sessions: m.sessions,
      };
    },
    async setTracing(on: boolean) {
      const m = await ask({ type: "tracing", on });
      if (m.type !== "tracing" || m.on !== on) throw new Error("unexpected answer from bench server");
    },
    async stop() {
      if (child.connected) child.send({ type: "stop" } satisfies ChildRequest);
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface StartOptions {
  /** Profile this server when the run profiles (--cpu-prof). */
  profile?: boolean;
  /** Node flags for this server, after the run's own. */
  nodeFlags?: string[];
  /** Arguments for this server after its kind. */
  args?: string[];
  /** Variables added to this server's environment. */
  env?: Record<string, string>;
}

/** Starts servers under test from one compiled tree, with the run's Node flags. */
export interface Servers {
  start(kind: ServerKind, options?: StartOptions): Promise<ServerChild>;
}

export function serversFrom(entry: string, cpuProfDir: string | null, runFlags: string[] = []): Servers {
  return {
    start: (kind, options = {}) => {
      const nodeFlags = [...runFlags, ...(options.nodeFlags ?? [])];
      const args = options.args ?? [];
      const env = options.env ?? {};
      return startServer(kind, options.profile && cpuProfDir ? { entry, cpuProfDir, nodeFlags, args, env } : { entry, nodeFlags, args, env });
    },
  };
}
