// Temporary folders, fake hub commands (use, wrwroxy, conda) and a spawned start_mcp for
// the launcher and CLI specs. Everything made here is removed in t.after.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const LIB_INDEX = join(ROOT, "lib", "index.ts");

interface After {
  after(fn: () => unknown): void;
}

export function tempDir(t: After, label = "hubmcp-"): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeScript(path: string, text: string): string {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

/** A one-tool .mjs app importing the library source (the CLI runs under tsx in specs). */
export function writeApp(dir: string, name = "app.mjs", extra = ""): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `import { McpServer } from ${JSON.stringify(LIB_INDEX)};
export const server = new McpServer("spec-app", { version: "1.2.3", closeTimeoutMs: 2000 });
server.tool(function echo(text) { return text; }, { description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } });
${extra}
`,
  );
  return path;
}

/** A free TCP port on 127.0.0.1 (for hub mode, where fixed ports are configured through env). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching, rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  waitForErr(pattern: RegExp): Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node --import tsx cli/start_mcp.ts ...args`; killed in t.after if still running. */
export function spawnCli(
  t: After,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = ROOT,
  command: string[] = [process.execPath, "--import", "tsx", join(ROOT, "cli", "start_mcp.ts")],
): Spawned {
  const child = spawn(command[0]!, [...command.slice(1), ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const watchers: { stream: "out" | "err"; pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = (): void => {
    for (const w of [...watchers]) {
      const m = (w.stream === "out" ? out : err).match(w.pattern);
      if (m) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout!.setEncoding("utf8").on("data", (c: string) => ((out += c), check()));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => ((err += c), check()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exit;
    }
  });
  const waitOn = (stream: "out" | "err", pattern: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      watchers.push({ stream, pattern, resolve });
      check();
      void exit.then(({ code }) => reject(new Error(`start_mcp exited (${code}) before ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
    });
  return { child, stdout: () => out, stderr: () => err, waitFor: (p) => waitOn("out", p), waitForErr: (p) => waitOn("err", p), exit };
}

/** True while a process with this pid exists. */
/** Whether `pid` still runs. A zombie has exited (only its reaping is pending), so it counts as dead. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** A hub session folder with a resources file; returns the env to add. */
export function hubSession(
  dir: string,
  session = "777",
  cookie = "c00k1e",
  port = 11042,
): { SESSION: string; SESSIONDIR: string; prefix: string; proxyUrl: string } {
  const sessionDir = join(dir, "session");
  mkdirSync(sessionDir, { recursive: true });
  writeFileSync(join(sessionDir, "resources"), `hub_url "https://hub.example.org"\nfilexfer_port ${port}\nfilexfer_cookie ${cookie}\n`);
  const prefix = `/weber/${session}/${cookie}/${port % 1000}`;
  return { SESSION: session, SESSIONDIR: sessionDir, prefix, proxyUrl: `https://proxy.hub.example.org${prefix}/` };
}

/**
 * Fake hub commands in `<dir>/bin`, reached through a login shell: a temporary HOME
 * whose .bash_profile puts that folder first on PATH (as a hub profile provides `use`).
 * `use` lists packages on stderr; `wrwroxy` is a small streaming proxy that records its argv.
 */
export function fakeHubTools(dir: string, opts: { wrwroxyVersions?: string[] } = {}): { bin: string; home: string; argvFile: string; pidFile: string } {
  const bin = join(dir, "bin");
  const home = join(dir, "home");
  mkdirSync(bin, { recursive: true });
  mkdirSync(home, { recursive: true });
  const argvFile = join(dir, "wrwroxy-argv.json");
  const pidFile = join(dir, "wrwroxy.pid");
  writeFileSync(join(home, ".bash_profile"), `export PATH=${JSON.stringify(bin)}:"$PATH"\n`);
  const versions = opts.wrwroxyVersions ?? ["wrwroxy-0.2", "wrwroxy-0.10", "wrwroxy-0.9.1"];
  writeScript(
    join(bin, "use"),
    `#!/bin/sh
if [ "$1" = "-e" ]; then exit 0; fi
echo "Available: anaconda-7: ${versions.map((v) => `${v}:`).join(" ")} rappture-1.9:" 1>&2
`,
  );
  writeScript(
    join(bin, "wrwroxy"),
    `#!${process.execPath}
const { createServer, request } = require("node:http");
const { writeFileSync } = require("node:fs");
const args = process.argv.slice(2);
writeFileSync(${JSON.stringify(argvFile)}, JSON.stringify(args));
writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
writeFileSync(${JSON.stringify(pidFile)} + ".conda", process.env.CONDA_DEFAULT_ENV || "none");
const opt = (name) => args[args.indexOf(name) + 1];
const server = createServer((req, res) => {
  const path = req.url.replace(/^\\/weber\\/[^/]+\\/[^/]+\\/[^/?]+/, "") || "/";
  const up = request({ host: opt("--forwardHost"), port: Number(opt("--forwardPort")), method: req.method, path: path.startsWith("/") ? path : "/" + path, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode, answer.headers);
    res.flushHeaders();
    answer.pipe(res);
  });
  up.on("error", () => { res.writeHead(502); res.end(); });
  res.on("close", () => up.destroy());
  req.pipe(up);
});
server.listen(Number(opt("--listenPort")), "127.0.0.1");
process.on("SIGTERM", () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`,
  );
  return { bin, home, argvFile, pidFile };
}

/** A fake `conda` whose `info --json` lists `<dir>/conda/envs/<name>` for each name; each env has a fake python. */
export function fakeConda(dir: string, names: string[]): { bin: string; root: string } {
  const bin = join(dir, "condabin");
  const root = join(dir, "conda");
  mkdirSync(bin, { recursive: true });
  const envs = [root, ...names.map((n) => join(root, "envs", n))];
  for (const prefix of envs) {
    mkdirSync(join(prefix, "bin"), { recursive: true });
    writeScript(join(prefix, "bin", "python"), `#!/bin/sh\necho "python from ${prefix}"\n`);
  }
  writeScript(join(bin, "conda"), `#!/bin/sh\necho '${JSON.stringify({ root_prefix: root, envs })}'\n`);
  return { bin, root };
}

/** The environment start_mcp gets in specs: no hub session variables; compiled apps cached in `cacheDir`. */
export function launcherEnv(cacheDir: string | undefined, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  if (cacheDir !== undefined) e.XDG_CACHE_HOME = cacheDir;
  for (const name of ["SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR", "MCP_PORT"]) delete e[name];
  return { ...e, ...extra };
}

/** launcherEnv for running npm offline and quietly against a private cache (packing, installing a tarball). */
export function offlineNpmEnv(dir: string): NodeJS.ProcessEnv {
  const env = launcherEnv(undefined, {
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  });
  delete env.NODE_OPTIONS;
  return env;
}

/** One session-less JSON-RPC request to a running server's `/mcp`. */
export async function rpcAt(url: string, method: string, params: object = {}): Promise<{ result: Record<string, unknown>; error?: unknown }> {
  const res = await fetch(`${url}mcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result: Record<string, unknown>; error?: unknown };
}
