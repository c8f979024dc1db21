#!/usr/bin/env node
// The `hub_gateway` command: serve (`--config gateway.json`), `init` (a first local
// gateway), and the operator commands `user …`, `token …` and `tool …` on a data dir. The commands
// live in lib/gateway/cli; this file parses argv, serves, and wires stdin, stdout/stderr
// and the stop signals.
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { StoreAccountDirectory } from "../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../lib/gateway/identity/api-tokens.ts";
import { checkAppFiles, ConfigError, parseGatewayConfigText, type GatewayConfig } from "../lib/gateway/config/gateway-config.ts";
import { startGateway } from "../lib/gateway/server.ts";
import { AuditTrail } from "../lib/gateway/audit/trail.ts";
import { auditingLogger } from "../lib/gateway/audit/oauth-events.ts";
import { DataDirError } from "../lib/gateway/store/file-record-store.ts";
import { openStore, type OpenedStore } from "../lib/gateway/store/open-store.ts";
import { StoreConfigError, StoreFullError, StoreUnavailableError } from "../lib/gateway/contracts/store-errors.ts";
import { gatewayAuthorizationServer, identitySecrets } from "../lib/gateway/identity/oauth-for-gateway.ts";
import { initCommand } from "../lib/gateway/cli/init.ts";
import { NAME, usage, USAGE, type CliIo } from "../lib/gateway/cli/io.ts";
import { tokenCommand } from "../lib/gateway/cli/tokens.ts";
import { userCommand } from "../lib/gateway/cli/users.ts";
import { toolCommand } from "../lib/gateway/cli/tools.ts";
import { cliTrail } from "../lib/gateway/cli/trail.ts";
import { LiveTools } from "../lib/gateway/tool-registry/live.ts";
import { usageCommand } from "../lib/gateway/cli/usage.ts";
import type { Logger } from "../lib/util/logger.ts";
import { listenForStop, packageVersion, runIfExecutedDirectly } from "../lib/util/cli-entry.ts";

export { USAGE, type CliIo };

type Values = {
  config?: string;
  host?: string;
  port?: string;
  "data-dir"?: string;
  store?: string;
  groups?: string;
  "password-stdin"?: boolean;
  app?: string;
  tool?: string;
  user?: string;
  url?: string;
  rappture?: string;
  command?: boolean;
  revision?: string;
  isolation?: string;
  default?: boolean;
  format?: string;
  now?: boolean;
  expires?: string;
  name?: string;
  since?: string;
  by?: string;
  "audit-dir"?: string;
  help?: boolean;
  version?: boolean;
};

/** The config file, checked: one line naming the key (or the missing app file) and exit 2 otherwise. */
async function loadConfig(io: CliIo, file: string): Promise<GatewayConfig | number> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    io.err(`${NAME}: cannot read the config file`);
    return 2;
  }
  try {
    const config = parseGatewayConfigText(text, dirname(resolve(file)));
    await checkAppFiles(config);
    if (config.oauth.enabled) identitySecrets(config.oauth);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${NAME}: config: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

/**
 * Opens the store the options name (one place for the server and every operator command),
 * runs `work` on it and closes it. Store problems become one line and an exit status.
 */
async function withStore(
  io: CliIo,
  values: Values,
  env: NodeJS.ProcessEnv,
  config: GatewayConfig | undefined,
  work: (opened: OpenedStore) => Promise<number>,
): Promise<number> {
  let opened: OpenedStore | undefined;
  try {
    opened = await openStore({ store: values.store, dataDir: values["data-dir"], configStore: config?.store }, env);
    return await work(opened);
  } catch (err) {
    if (err instanceof StoreConfigError || err instanceof DataDirError || err instanceof StoreFullError) io.err(`${NAME}: ${err.message}`);
    else if (err instanceof StoreUnavailableError) io.err(`${NAME}: the store is unreachable; check that the database is up and its address`);
    else if (isSqlState(err)) io.err(`${NAME}: cannot open the store (postgres error ${err.code}: login, database name or permissions)`);
    else throw err;
    return err instanceof DataDirError || (err instanceof StoreConfigError && err.code === "HUBMCP_BAD_STORE") ? 2 : 1;
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

function isSqlState(err: unknown): err is { code: string } {
  return typeof err === "object" && err !== null && /^[0-9A-Z]{5}$/.test(String((err as { code?: unknown }).code));
}

async function serve(io: CliIo, values: Values, env: NodeJS.ProcessEnv, port: number): Promise<number> {
  if (!values.config) return usage(io, "--config is required");
  const config = await loadConfig(io, values.config);
  if (typeof config === "number") return config;
  return withStore(io, values, env, config, (opened) => serveOn(io, values, config, opened, port));
}

async function serveOn(io: CliIo, values: Values, fileConfig: GatewayConfig, opened: OpenedStore, port: number): Promise<number> {
  const { store } = opened;
  // The OAuth server and the gateway see the same tools, registered ones included: a
  // person may get a token for a registered tool's own URL.
  const liveTools = await LiveTools.open({
    store,
    config: fileConfig,
    event: (name, fields) => io.err(JSON.stringify({ time: new Date().toISOString(), event: name, ...fields })),
  });
  const { config } = liveTools;
  // The OAuth server needs the public URL, which without a configured one is known only once listening.
  let publicUrl = config.publicUrl ?? "http://127.0.0.1";
  const audit = new AuditTrail(config.audit, {
    onError: (code) => io.err(JSON.stringify({ time: new Date().toISOString(), event: "audit trail failed", code })),
  });
  const authorizationServer = config.oauth.enabled
    ? gatewayAuthorizationServer({
        config,
        settings: config.oauth,
        store,
        accounts: new StoreAccountDirectory(store),
        apiTokens: new ApiTokens(store, new StoreAccountDirectory(store)),
        publicUrl: () => publicUrl,
        logger: auditingLogger(jsonLineLogger(io.err), audit),
      })
    : undefined;
  let gateway;
  try {
    gateway = await startGateway({
      config,
      store,
      host: values.host ?? "127.0.0.1",
      port,
      log: io.err,
      sharedLimits: opened.kind === "postgres",
      liveTools,
      audit,
      ...(authorizationServer ? { authorizationServer } : {}),
    });
    publicUrl = gateway.publicUrl;
  } catch (err) {
    liveTools.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") io.err(`${NAME}: port ${port} is already in use`);
    else if (code === "EACCES") io.err(`${NAME}: not allowed to listen on port ${port} or to use the data dir`);
    else if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") io.err(`${NAME}: cannot listen on that address`);
    else throw err;
    await audit.close();
    return 1;
  }
  io.out(`hub_gateway ready at ${gateway.url}`);
  const signal = await io.stopRequested;
  io.err(`${NAME}: ${signal} received; stopping tool sessions`);
  await gateway.close();
  await audit.close();
  return 0;
}

export async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, script?: string): Promise<number> {
  let values: Values;
  let positionals: string[];
  // `tool add NAME --command -- PROGRAM ARG…`: what follows `--` is the command, as given.
  const dashes = argv.indexOf("--");
  const tail = dashes === -1 ? undefined : argv.slice(dashes + 1);
  try {
    ({ values, positionals } = parseArgs({
      args: dashes === -1 ? [...argv] : argv.slice(0, dashes),
      strict: true,
      allowPositionals: true,
      options: {
        config: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        "data-dir": { type: "string" },
        store: { type: "string" },
        groups: { type: "string" },
        "password-stdin": { type: "boolean" },
        app: { type: "string" },
        tool: { type: "string" },
        user: { type: "string" },
        url: { type: "string" },
        rappture: { type: "string" },
        command: { type: "boolean" },
        revision: { type: "string" },
        isolation: { type: "string" },
        default: { type: "boolean" },
        format: { type: "string" },
        now: { type: "boolean" },
        expires: { type: "string" },
        name: { type: "string" },
        since: { type: "string" },
        by: { type: "string" },
        "audit-dir": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    }));
  } catch (err) {
    return usage(io, (err as Error).message.split("\n")[0]!);
  }
  if (values.help) {
    io.out(USAGE.trimEnd());
    return 0;
  }
  if (values.version) {
    io.out(`${NAME} ${packageVersion()}`);
    return 0;
  }
  const portText = values.port ?? "8080";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return usage(io, "--port must be a port number (0-65535)");
  const dataDir = resolve(values["data-dir"] ?? env.HUB_GATEWAY_DATA_DIR ?? "hub-data");
  const [command, sub, arg, value, ...extra] = positionals;
  if (extra.length > 0 || (value !== undefined && !(command === "user" && sub === "groups"))) return usage(io, "too many arguments");
  if (command === undefined) return serve(io, values, env, Number(portText));
  if (command === "init") {
    if (sub !== undefined) return usage(io, "init takes options only");
    const args = {
      ...(values.app !== undefined ? { app: values.app } : {}),
      ...(values.tool !== undefined ? { tool: values.tool } : {}),
      ...(values.user !== undefined ? { user: values.user } : {}),
      ...(values.config !== undefined ? { config: values.config } : {}),
      dataDir,
      port: Number(portText),
      passwordStdin: values["password-stdin"] === true,
      ...(script !== undefined ? { script } : {}),
    };
    const url = values.store;
    if (url === undefined) return initCommand(io, env, args);
    // The config init writes does not exist yet: the store comes from --store alone.
    return withStore(io, { store: url }, env, undefined, ({ store }) => initCommand(io, env, { ...args, store: { records: store, url } }));
  }
  if (command !== "user" && command !== "token" && command !== "tool" && command !== "usage") return usage(io, "unknown command");
  if ((tail !== undefined) !== (values.command === true)) return usage(io, "--command needs the command after --, and -- needs --command");
  if (tail?.length === 0) return usage(io, "--command needs a program after --");
  const config = values.config === undefined ? undefined : await loadConfig(io, values.config);
  if (typeof config === "number") return config;
  if (command === "usage") {
    if (sub !== undefined) return usage(io, "usage takes options only");
    const { since, tool, by, format } = values;
    return usageCommand(io, { since, tool, by, format, auditDir: values["audit-dir"] === undefined ? undefined : resolve(values["audit-dir"]), config });
  }
  return withStore(io, values, env, config, ({ store }) => {
    if (command === "user")
      return userCommand(io, store, { action: sub, name: arg, value, groups: values.groups, passwordStdin: values["password-stdin"] === true });
    if (command === "token") return tokenCommand(io, store, sub, arg, { expires: values.expires, name: values.name, audit: cliTrail(io, config) });
    return toolCommand(io, store, config, {
      action: sub,
      name: arg,
      ...optional({ app: values.app, url: values.url, rappture: values.rappture, command: tail, revision: values.revision }),
      ...optional({ groups: values.groups, isolation: values.isolation, format: values.format }),
      makeDefault: values.default === true,
      now: values.now === true,
    });
  });
}

/** The options given, without the keys of those that were not. */
function optional<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function jsonLineLogger(write: (line: string) => void): Logger {
  const line =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      write(JSON.stringify({ time: new Date().toISOString(), level, event: message, ...fields }));
  return { debug: () => {}, info: line("info"), warn: line("warn"), error: line("error") };
}

function readStdin(): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (c: string) => (text += c));
    process.stdin.once("end", () => resolvePromise(text));
    process.stdin.once("error", reject);
  });
}

export function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const stop = listenForStop(NAME);
  return run(
    argv,
    env,
    {
      out: (line) => void process.stdout.write(`${line}\n`),
      err: (line) => void process.stderr.write(`${line}\n`),
      readStdin,
      stopRequested: stop.requested,
    },
    process.argv[1],
  ).finally(stop.dispose);
}

runIfExecutedDirectly(import.meta.url, NAME, main);
