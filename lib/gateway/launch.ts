// Starting the server behind a revision: `app` runs start_mcp as a child on an ephemeral
// loopback port, which its ready line names (lib/util/ready-line.ts), `rappture` the same
// with --rappture and `stdio` with --stdio-server; `url` is a server already running, and `command` is a hub's own session launcher
// that prints one JSON line `{url, cookie?}`. All children get their own process group,
// so stopping one reaches everything it started, and run as the tool's account with a
// reduced environment (./run-as.ts). An `app` session answers only requests carrying its
// per-session secret, which the gateway adds when forwarding (lib/http/session-secret.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RevisionSpec } from "./config.ts";
import { servedFile, type Served } from "./served-settings.ts";
import { childAccount, childEnv, type Account } from "./run-as.ts";
import { provesSession } from "./ready-address.ts";
import { launchSlurm } from "./slurm-backend.ts";
import { sessionStateDir, type StateRoots } from "./state-dirs.ts";
import { SECRET_COOKIE, SECRET_FILE_ENV } from "../http/session-secret.ts";
import { parseReadyLine, type ReadyInfo } from "../util/ready-line.ts";

export interface Backend {
  /** Where the tool server answers, with a trailing slash. */
  readonly url: string;
  /** Sent upstream as the Cookie header (a hub session proxy's credential). */
  readonly cookie?: string;
  /** For `app` revisions: the mount path the server strips, served by the gateway as the session proxy path. */
  readonly weberPrefix?: string;
  /** The process this gateway runs for it, if any. */
  readonly pid?: number;
  /** For `slurm` revisions: the batch job that is the session. */
  readonly jobId?: string;
  /** Resolves when the backend's process ends on its own; never for backends without one. */
  readonly exited: Promise<void>;
  stop(): Promise<void>;
}

export interface LaunchRequest {
  revision: RevisionSpec;
  user: string;
  tool: string;
  revisionName: string;
  /** Tool session id, also the session segment of the proxy path. */
  instance: string;
  publicUrl: string;
  startTimeoutMs: number;
  /** Where children's allowed variables are taken from (the gateway's environment by default). */
  env?: NodeJS.ProcessEnv;
  /** Where `app` and `slurm` sessions' state directories are kept. */
  stateRoots: StateRoots;
  /** Lines the child writes on stderr, for the gateway's log. */
  onOutput(line: string): void;
}

/** A tool session that could not be started, or did not become ready in time. */
export class SessionLaunchError extends Error {
  constructor(
    readonly code: "HUBMCP_SESSION_NEVER_READY" | "HUBMCP_SESSION_LAUNCH_FAILED",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Node flags for one person's tool session, chosen by measuring an idle session of the
 * demo `.ts` app (docs/gateway.md, "Isolation"): a young generation of 1 MB semi-spaces, V8's
 * memory-over-speed heuristics, and one V8 background thread instead of four. Together
 * about 1.5 MB less RSS than V8's defaults, with no measurable change in CPU per call (one
 * person's calls rarely allocate enough for the extra scavenges to show). Left out:
 * `--lite-mode`/`--jitless` (6 MB less, but no optimizing compiler: 1.5× the CPU per call
 * and 7× for a hot loop) and allocator or libuv settings, which the tools' own children
 * would inherit. A shared tool server keeps V8's defaults.
 */
export const LEAN_SESSION_FLAGS: readonly string[] = ["--max-semi-space-size=1", "--optimize-for-size", "--v8-pool-size=1"];

/** How to run start_mcp: from source under tsx when this file is TypeScript, else the built CLI. */
export function launcherCommand(lean = false): string[] {
  const here = import.meta.url;
  const node = lean ? [process.execPath, ...LEAN_SESSION_FLAGS] : [process.execPath];
  if (here.endsWith(".ts")) {
    return [...node, "--import", import.meta.resolve("tsx"), fileURLToPath(new URL("../../cli/start_mcp.ts", here))];
  }
  return [...node, fileURLToPath(new URL("../../cli/start_mcp.js", here))];
}

const NEVER = new Promise<void>(() => {});

// However the gateway ends (a crash included), its children's groups must not outlive it:
// one exit hook for all of them, since a listener each would pile up past Node's warning.
const LIVE = new Set<() => void>();
process.once("exit", () => {
  for (const kill of LIVE) kill();
});

interface Group {
  child: ChildProcess;
  exited: Promise<void>;
  stop(): Promise<void>;
}

function spawnGroup(command: readonly string[], env: NodeJS.ProcessEnv, account: Account | null, cwd?: string): Group {
  const as = account ? { uid: account.uid, gid: account.gid } : {};
  const child = spawn(command[0]!, command.slice(1), { env, cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], ...as });
  const signal = (sig: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const onExit = (): void => signal("SIGTERM");
  LIVE.add(onExit);
  const exited = new Promise<void>((resolve) => {
    child.once("error", () => resolve());
    child.once("exit", () => resolve());
  }).then(() => void LIVE.delete(onExit));
  let stopping: Promise<void> | undefined;
  return {
    child,
    exited,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        signal("SIGTERM");
        const timer = setTimeout(() => signal("SIGKILL"), 3000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

/** What a child may print on stdout before the line the gateway waits for. */
const MAX_OUTPUT_BEFORE_READY = 1024 * 1024;

/**
 * Resolves with the first stdout line matching `accept`; rejects on exit, after `ms`, or
 * past MAX_OUTPUT_BEFORE_READY characters without one.
 */
function firstLine(group: Group, ms: number, accept: (line: string) => boolean, onOutput: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    let seen = 0;
    let found = false;
    const timer = setTimeout(
      () => reject(new SessionLaunchError("HUBMCP_SESSION_NEVER_READY", `the tool session did not become ready within ${Math.round(ms / 1000)} s`)),
      ms,
    );
    group.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      if (!found && (seen += chunk.length) > MAX_OUTPUT_BEFORE_READY) {
        clearTimeout(timer);
        reject(new SessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session printed too much before it was ready"));
      }
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!found && accept(line)) {
          found = true;
          clearTimeout(timer);
          resolve(line);
        }
      }
      if (buffered.length > 65536) buffered = "";
    });
    let err = "";
    group.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      let nl: number;
      while ((nl = err.indexOf("\n")) !== -1) {
        onOutput(err.slice(0, nl));
        err = err.slice(nl + 1);
      }
    });
    void group.exited.then(() => {
      clearTimeout(timer);
      reject(new SessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session exited before it was ready"));
    });
  });
}

/** The account a revision's children run as; a failure is reported on the session's output, then as HUBMCP_SESSION_LAUNCH_FAILED. */
async function accountFor(req: LaunchRequest, runAs: string | undefined): Promise<Account | null> {
  try {
    return await childAccount(runAs, req.user);
  } catch (err) {
    req.onOutput((err as Error).message);
    throw new SessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", (err as Error).message);
  }
}

/** Writes a file only the child's account (and the gateway) can read. */
async function privateFile(path: string, text: string, account: Account | null): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  if (account) await chown(path, account.uid, account.gid);
}

/**
 * The session proxy path, in a hub's `/weber/<session>/<cookie>/<port>` shape; the gateway
 * routes on the session segment only, so the last one is a fixed placeholder.
 */
function weberPrefixOf(instance: string): string {
  return `/weber/${instance}/${instance.slice(0, 16)}/0`;
}

/** The child's ready line, if it is one naming the loopback address and the prefix it was given. */
function readyAt(line: string, prefix: string): ReadyInfo | null {
  const info = parseReadyLine(line);
  return info && new URL(info.url).hostname === "127.0.0.1" && info.prefix === prefix ? info : null;
}

/** A `stdio` revision's server, run from gateway.json's folder so the command's relative paths are taken from there. */
type StdioServed = { readonly stdio: readonly string[]; readonly cwd: string };

/** What start_mcp is told to serve: an app or tool.xml, or a stdio server's command (last: it follows `--`). */
function servedArgs(served: Served | StdioServed): { flags: string[]; tail: string[] } {
  if ("stdio" in served) return { flags: ["--stdio-server"], tail: ["--", ...served.stdio] };
  const { key, file } = servedFile(served);
  return { flags: [`--${key}`, file], tail: [] };
}

async function launchApp(
  req: LaunchRequest,
  served: Served | StdioServed,
  runAs: string | undefined,
  allow: readonly string[],
  shared: boolean,
): Promise<Backend> {
  const account = await accountFor(req, runAs);
  // The child binds a port of its own choosing and strips the proxy path it is given; its
  // ready line says where it listens. Its folder holds the secret and is its account's alone.
  const dir = await mkdtemp(join(tmpdir(), "hubmcp-gw-"));
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const prefix = weberPrefixOf(req.instance);
  const secret = randomBytes(32).toString("base64url");
  let group: Group;
  try {
    const stateDir = await sessionStateDir(await req.stateRoots.root({ kind: "app", parent: tmpdir() }), req.user, req.tool, req.revisionName, account);
    if (account) await chown(dir, account.uid, account.gid);
    await privateFile(join(dir, "secret"), secret, account);
    const env = childEnv(req.env ?? process.env, allow, account, {
      [SECRET_FILE_ENV]: join(dir, "secret"),
      HUB_USER: req.user,
      HUB_TOOL: req.tool,
      HUB_REVISION: req.revisionName,
    });
    const { flags, tail } = servedArgs(served);
    const args = [...flags, "--host", "127.0.0.1", "--port", "0", "--path-prefix", prefix, "--ready-line", "--state-dir", stateDir, ...tail];
    group = spawnGroup([...launcherCommand(!shared), ...args], env, account, "stdio" in served ? served.cwd : dir);
  } catch (err) {
    await cleanup();
    throw err;
  }
  void group.exited.then(cleanup);
  let ready: ReadyInfo;
  try {
    ready = readyAt(await firstLine(group, req.startTimeoutMs, (line) => readyAt(line, prefix) !== null, req.onOutput), prefix)!;
    // Any process of the session's account can write into the child's stdout (/proc/<pid>/fd/1).
    if (!(await provesSession(ready.url, secret))) {
      req.onOutput("the server at the tool session's ready address did not prove it is the session's: refused");
      throw new SessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session's ready line was refused");
    }
  } catch (err) {
    await group.stop();
    throw err;
  }
  return {
    url: ready.url,
    cookie: `${SECRET_COOKIE}=${secret}`,
    weberPrefix: prefix,
    pid: group.child.pid,
    exited: group.exited,
    stop: group.stop,
  };
}

async function launchCommand(req: LaunchRequest, command: readonly string[], runAs: string | undefined, allow: readonly string[]): Promise<Backend> {
  const account = await accountFor(req, runAs);
  const env = childEnv(req.env ?? process.env, allow, account, {
    HUB_USER: req.user,
    HUB_TOOL: req.tool,
    HUB_REVISION: req.revisionName,
    HUB_SESSION: req.instance,
  });
  const group = spawnGroup(command, env, account);
  let line: string;
  try {
    line = await firstLine(group, req.startTimeoutMs, (l) => l.startsWith("{"), req.onOutput);
  } catch (err) {
    await group.stop();
    throw err;
  }
  let info: unknown;
  try {
    info = JSON.parse(line);
  } catch {
    info = null;
  }
  const { url, cookie } = (info ?? {}) as { url?: unknown; cookie?: unknown };
  if (typeof url !== "string" || !/^http:\/\//.test(url) || (cookie !== undefined && typeof cookie !== "string") || !URL.canParse(url)) {
    await group.stop();
    throw new SessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the session command printed no usable {url, cookie} line");
  }
  // A launcher that exits cleanly after printing hands the session to something else (a
  // batch system, a hub): only a failing exit, or one while running, ends the session.
  let stopping = false;
  return {
    url: url.endsWith("/") ? url : `${url}/`,
    cookie: cookie as string | undefined,
    pid: group.child.pid,
    exited: group.exited.then(() => (stopping || group.child.exitCode === 0 ? NEVER : undefined)),
    stop: async () => {
      stopping = true;
      await group.stop();
    },
  };
}

export async function launchBackend(req: LaunchRequest): Promise<Backend> {
  const r = req.revision;
  if (r.kind === "url") return { url: r.url, exited: NEVER, stop: async () => {} };
  if (r.kind === "app" || r.kind === "rappture") return launchApp(req, r, r.runAs, r.env ?? [], r.isolation === "shared");
  // Always one per person: a stdio server's requests name no call (./config.ts refuses "shared").
  if (r.kind === "stdio") return launchApp(req, r, r.runAs, r.env ?? [], false);
  if (r.kind === "slurm") {
    const fail = (code: SessionLaunchError["code"], message: string): Error => new SessionLaunchError(code, message);
    return launchSlurm(req, r.slurm, await accountFor(req, r.runAs), { launcher: launcherCommand(true), allow: r.env ?? [], fail });
  }
  return launchCommand(req, r.command, r.runAs, r.env ?? []);
}
