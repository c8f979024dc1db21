// start_mcp from parsed arguments to a clean exit: python environment, app, local or hub
// mode, the printed lines, and shutdown on a stop request. Output goes through `io`, so
// the CLI decides what reaches the terminal.
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { RunningServer } from "../http/listen.ts";
import { adoptLogger, loadApp, type ServerLike } from "./app-loader.ts";
import { parseLauncherArgs, USAGE, type LaunchOptions } from "./args.ts";
import { lookupConda } from "./conda.ts";
import { initCommand } from "./init.ts";
import { detectHub, hubEnv } from "./hub.ts";
import { guarded, hubPorts, HubStartError, startHub, type HubRun } from "./hub-mode.ts";
import { isLoopbackHost } from "../http/loopback.ts";
import { takeSessionSecret } from "../http/session-secret.ts";
import { attachRequestLog } from "./request-log.ts";
import { stderrLogger } from "./stderr-logger.ts";
import { superviseWatch } from "./watch.ts";
import { protocolOutput, superviseStdioChild } from "./stdio-split.ts";
import { publishRappture } from "./rappture-tools.ts";
import { startStdioServer } from "./stdio-server.ts";
import { formatReadyLine } from "../util/ready-line.ts";
import { packageVersion } from "../util/cli-entry.ts";

export interface LauncherIo {
  /** A line for stdout (the lines users and scripts read). */
  out(line: string): void;
  /** A line for stderr (diagnostics). */
  err(line: string): void;
  /** Resolves with the signal name when the launcher should shut down. */
  stopRequested: Promise<string>;
  /** The command that runs start_mcp again (node, its flags, the script): --stdio serves from such a child (./stdio-split.ts). */
  relaunch: readonly string[];
}

const NAME = "start_mcp";

function listenFailure(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e.code === "EADDRINUSE") return `${NAME}: port ${e.port ?? "?"} is already in use`;
  if (e.code === "EACCES") return `${NAME}: not allowed to listen on port ${e.port ?? "?"}`;
  if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND") return `${NAME}: cannot listen on address ${e.address ?? "?"}`;
  if (err instanceof HubStartError) return `${NAME}: ${err.message}`;
  throw err;
}

async function readResources(dir: string): Promise<string | null> {
  try {
    return await readFile(join(dir, "resources"), "utf8");
  } catch {
    return null;
  }
}

/** The address the socket is bound to (0.0.0.0 stays 0.0.0.0: it says who can reach the server). */
export function boundUrl(server: RunningServer): string {
  const address = server.httpServer.address();
  if (address === null || typeof address === "string") return server.url;
  const host = address.address.includes(":") ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${new URL(server.url).pathname}`;
}

/** One line when the socket takes connections from beyond this machine, else null. */
export function exposure(server: RunningServer, onHub: boolean): string | null {
  const address = server.httpServer.address();
  if (address === null || typeof address === "string" || isLoopbackHost(address.address)) return null;
  const why = onHub ? "the hub's proxy reaches it there" : "--host 127.0.0.1 keeps it on this machine";
  return `listening on ${address.address}, beyond this machine: whoever reaches port ${address.port} can use every tool, the console and /sse with no credential (${why})`;
}

type Started = { server: RunningServer; prefix: string; lines: string[]; notes: string[]; hub: HubRun | null };

async function start(options: LaunchOptions, env: NodeJS.ProcessEnv, io: LauncherIo, app: ServerLike, secret: string | undefined): Promise<Started | number> {
  // An explicit mount path is the whole arrangement (how hub_gateway starts its children): no hub is looked for.
  const found = options.pathPrefix === undefined ? hubEnv(env) : null;
  const detection = found ? detectHub(env, await readResources(found.sessionDir)) : ({ kind: "local" } as const);
  if (detection.kind === "fallback") io.err(`${NAME}: warning: ${detection.warning}`);
  if (detection.kind !== "hub") {
    if (options.proxy !== "auto") io.err(`${NAME}: --proxy applies on a hub session only; ignored`);
    const prefix = options.pathPrefix ?? "";
    const listening = app.listen({
      host: options.host ?? "127.0.0.1",
      port: options.port,
      ...(prefix ? { pathPrefix: prefix } : {}),
      ...(options.allowedHosts.length > 0 ? { allowedHosts: options.allowedHosts } : {}),
    });
    const server = await guarded({ secret }, listening);
    const url = boundUrl(server);
    return { server, prefix, lines: [`MCP server ready at ${url}`, `SSE endpoint: ${url}sse`], notes: [], hub: null };
  }
  const ports = hubPorts(env);
  if (typeof ports === "string") {
    io.err(`${NAME}: ${ports}`);
    return 2;
  }
  const hub = await startHub({
    app,
    hub: detection.hub,
    // The hub's proxy reaches the server from another address: the interface specification's bind.
    host: options.host ?? "0.0.0.0",
    proxy: options.proxy,
    ports,
    debug: options.debug,
    env,
    secret,
    onProxyOutput: (text) => {
      for (const line of text.split(/\r?\n/)) if (line) io.err(`[proxy] ${line}`);
    },
  });
  const url = detection.hub.proxyUrl;
  return {
    server: hub.server,
    prefix: detection.hub.pathPrefix,
    lines: [`Proxy URL : ${url}`, `MCP server ready at ${url}`, `SSE endpoint: ${url}sse`],
    notes: hub.notes,
    hub,
  };
}

/** Runs start_mcp; resolves with the exit status once the server has stopped. */
export async function launch(argv: readonly string[], env: NodeJS.ProcessEnv, io: LauncherIo): Promise<number> {
  if (argv[0] === "init") return initCommand(argv.slice(1), io);
  const parsed = parseLauncherArgs(argv, env);
  if (parsed.kind === "help") {
    io.out(USAGE.trimEnd());
    return 0;
  }
  if (parsed.kind === "version") {
    io.out(`${NAME} ${packageVersion()}`);
    return 0;
  }
  if (parsed.kind === "usage") {
    io.err(`${NAME}: ${parsed.message}`);
    io.err(USAGE.trimEnd());
    return 2;
  }
  const options = parsed.options;
  // The watcher only supervises: the app is loaded by each child it starts, never here. A
  // session secret is left to the child (fail-closed: a restart finds its file gone and stays down).
  if (options.watch) {
    const rest = argv.filter((a) => a !== "--watch");
    // A Rappture-only server is watched in its (first) tool.xml's folder: its command and examples live there.
    return superviseWatch(io.relaunch, rest, env, dirname(resolve(options.app ?? options.rappture[0]!)), io);
  }
  // Taken before anything runs (the app's import included), so nothing started later inherits its path.
  const taken = takeSessionSecret(env);
  if (taken !== null && "error" in taken) {
    io.err(`${NAME}: ${taken.error}`);
    return 2;
  }
  const output = options.stdio ? protocolOutput(env) : undefined;
  if (typeof output === "string") {
    io.err(`${NAME}: ${output}`);
    return 1;
  }
  // On stdio, stdout carries protocol messages only: the app runs where its stdout is our stderr.
  if (options.stdio && output === undefined) return superviseStdioChild(io.relaunch, argv, env, io);
  // The hub's own tools (use, wrwroxy) run with the environment as it was, not the conda one.
  const hubToolsEnv: NodeJS.ProcessEnv = { ...env };

  if (options.pythonEnv !== undefined) {
    const conda = await lookupConda(options.pythonEnv, env);
    if (conda.kind === "error") {
      io.err(`${NAME}: ${conda.message}`);
      return 1;
    }
    // The server runs in this process: tools spawned from it inherit these.
    Object.assign(env, conda.vars);
    io.err(`${NAME}: python environment ${options.pythonEnv} (${conda.prefix})`);
  }

  // The app makes its McpServer while it loads: the state directory reaches it through the environment.
  if (options.stateDir !== undefined) env.HUBMCP_STATE_DIR = resolve(options.stateDir);

  const relayed = options.stdioServer ? await startStdioServer(options.stdioServer, env, io.err) : undefined;
  if (typeof relayed === "string") {
    io.err(`${NAME}: ${relayed}`);
    return 1;
  }
  const loaded =
    options.app === undefined ? ({ kind: "ok", server: relayed?.server, notes: [], unexpressible: [] } as const) : await loadApp(options.app, { env });
  if (loaded.kind === "error") {
    io.err(`${NAME}: ${loaded.message}`);
    return 1;
  }
  try {
    return await serve(options, hubToolsEnv, io, loaded, taken?.secret, output);
  } finally {
    // The stdio server's process group stops with start_mcp, whichever way it ends.
    await relayed?.close();
  }
}

async function serve(
  options: LaunchOptions,
  hubToolsEnv: NodeJS.ProcessEnv,
  io: LauncherIo,
  loaded: { server: ServerLike | undefined; notes: readonly string[]; unexpressible: readonly string[] },
  secret: string | undefined,
  output: NodeJS.WritableStream | undefined,
): Promise<number> {
  const published = publishRappture(options.rappture, loaded.server);
  if (published.kind === "error") {
    io.err(`${NAME}: ${published.message}`);
    return 1;
  }
  const app = published.server;
  // Handler failures and the like reach the operator; the library itself prints nothing.
  adoptLogger(app, stderrLogger(io.err, options.debug, NAME));
  for (const note of loaded.notes) io.err(`${NAME}: ${note}`);
  if (options.debug && loaded.unexpressible.length > 0) {
    io.err(`${NAME}: parameter types with no JSON Schema equivalent (these accept any value):`);
    for (const entry of loaded.unexpressible) io.err(`  ${entry}`);
  }

  if (output) return serveOnStdio(app, io, output);

  let started: Started | number;
  try {
    started = await start(options, hubToolsEnv, io, app, secret);
  } catch (err) {
    io.err(listenFailure(err));
    return 1;
  }
  if (typeof started === "number") return started;

  const { server, hub } = started;
  if (options.debug) attachRequestLog(server.httpServer, (line) => io.err(line));
  for (const note of started.notes) io.err(`${NAME}: ${note}`);
  const exposed = exposure(server, hub !== null);
  if (exposed) io.err(`${NAME}: ${exposed}`);
  // The ready line comes first, so a reader can stop at it.
  if (options.readyLine) io.out(formatReadyLine({ url: new URL("/", boundUrl(server)).href, prefix: started.prefix }));
  for (const line of started.lines) io.out(line);

  const proxyGone = hub?.proxyGone?.then((code) => ({ kind: "proxy" as const, code }));
  const stop = io.stopRequested.then((signal) => ({ kind: "signal" as const, signal }));
  const reason = await Promise.race(proxyGone ? [stop, proxyGone] : [stop]);
  if (reason.kind === "proxy") io.err(`${NAME}: the reverse proxy exited (code ${reason.code ?? "signal"}); stopping`);
  else io.err(`${NAME}: ${reason.signal} received; shutting down`);
  // Server first, so answers to running calls still travel through the proxy; then the proxy.
  await server.close();
  await hub?.stopProxy();
  return reason.kind === "proxy" ? 1 : 0;
}

/** `--stdio`: serve until the client closes stdin or a stop signal arrives; every line for people goes to stderr. */
async function serveOnStdio(app: ServerLike, io: LauncherIo, output: NodeJS.WritableStream): Promise<number> {
  if (typeof app.serveStdio !== "function") {
    io.err(`${NAME}: this app's hubmcp has no stdio transport; update the hubmcp it imports`);
    return 1;
  }
  const served = app.serveStdio({ output });
  io.err(`${NAME}: MCP server ready on stdio`);
  const reason = await Promise.race([served.closed.then(() => null), io.stopRequested]);
  if (reason !== null) io.err(`${NAME}: ${reason} received; shutting down`);
  await served.close();
  return 0;
}
