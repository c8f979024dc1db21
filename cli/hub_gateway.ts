#!/usr/bin/env node
// The `hub_gateway` command: serve (`--config gateway.json`), and the operator commands
// `user add` and `token create|revoke|list` on a data dir. The work lives in lib/gateway;
// this file wires it to argv, stdin, stdout/stderr and the stop signals.
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { AccountError, StoreAccountDirectory } from "../lib/gateway/accounts.ts";
import { ApiTokens } from "../lib/gateway/api-tokens.ts";
import { ConfigError, parseGatewayConfigText, type GatewayConfig } from "../lib/gateway/config.ts";
import { startGateway } from "../lib/gateway/server.ts";
import type { RecordStore } from "../lib/gateway/contracts.ts";
import { openStore, type OpenedStore } from "../lib/gateway/store/open-store.ts";
import { StoreConfigError, StoreUnavailableError } from "../lib/gateway/store/store-errors.ts";
import { gatewayAuthorizationServer } from "../lib/gateway/oauth/for-gateway.ts";
import type { Logger } from "../lib/util/logger.ts";
import { listenForStop, runIfExecutedDirectly } from "../lib/util/cli-entry.ts";

const NAME = "hub_gateway";

export const USAGE = `usage: hub_gateway --config FILE [--host HOST] [--port PORT] [STORE]
       hub_gateway user add NAME [--groups a,b] --password-stdin [STORE]
       hub_gateway token create NAME [STORE]
       hub_gateway token revoke ID [STORE]
       hub_gateway token list [STORE]
STORE is --data-dir DIR, or --store postgres://user@host:port/db (password in
HUBMCP_STORE_PASSWORD), or --config FILE with "store" in it.

Front many MCP tools for outside callers: bearer tokens, per-user tool sessions.

options:
      --config FILE       gateway.json (publicUrl, tools, limits)
      --host HOST         bind address                        (default 127.0.0.1)
      --port PORT         listening port                      (default 8080)
      --data-dir DIR      accounts, tokens, keys, sessions    (default ./hub-data)
      --store URL         the same in PostgreSQL, shared by replicas on any machine
      --groups LIST       comma-separated groups for user add
      --password-stdin    read the new user's password from stdin
  -h, --help              show this help
`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
  /** Resolves when the server should stop. */
  stopRequested: Promise<string>;
}

type Values = { config?: string; host?: string; port?: string; "data-dir"?: string; store?: string; groups?: string; "password-stdin"?: boolean; help?: boolean };

function usage(io: CliIo, message: string): number {
  io.err(`${NAME}: ${message}`);
  io.err(USAGE.trimEnd());
  return 2;
}

async function userAdd(io: CliIo, store: RecordStore, name: string | undefined, values: Values): Promise<number> {
  if (!name) return usage(io, "user add needs a NAME");
  if (!values["password-stdin"]) return usage(io, "user add needs --password-stdin");
  const password = (await io.readStdin()).replace(/\r?\n$/, "");
  const groups = values.groups ? values.groups.split(",").map((g) => g.trim()).filter(Boolean) : [];
  try {
    await new StoreAccountDirectory(store).add(name, password, groups);
  } catch (err) {
    if (err instanceof AccountError) {
      io.err(`${NAME}: ${err.message}`);
      return err.code === "user_exists" ? 1 : 2;
    }
    throw err;
  }
  io.out(`user ${name} added${groups.length ? ` (groups: ${groups.join(", ")})` : ""}`);
  return 0;
}

async function token(io: CliIo, store: RecordStore, action: string | undefined, arg: string | undefined): Promise<number> {
  const tokens = new ApiTokens(store, new StoreAccountDirectory(store));
  if (action === "create") {
    if (!arg) return usage(io, "token create needs a user NAME");
    const made = await tokens.create(arg);
    if (!made) {
      io.err(`${NAME}: no such user`);
      return 1;
    }
    io.out(made.token);
    io.err(`${NAME}: token ${made.id} created; it is shown only this once`);
    return 0;
  }
  if (action === "revoke") {
    if (!arg) return usage(io, "token revoke needs a token ID");
    if (!(await tokens.revoke(arg))) {
      io.err(`${NAME}: no token with that id`);
      return 1;
    }
    io.out(`token ${arg} revoked`);
    return 0;
  }
  if (action === "list") {
    for (const t of await tokens.list()) io.out(`${t.id}  ${t.user}  ${t.createdAt}`);
    return 0;
  }
  return usage(io, "token needs create, revoke or list");
}

async function loadConfig(io: CliIo, path: string): Promise<GatewayConfig | number> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    io.err(`${NAME}: cannot read the config file`);
    return 2;
  }
  try {
    return parseGatewayConfigText(text, dirname(resolve(path)));
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
async function withStore(io: CliIo, values: Values, env: NodeJS.ProcessEnv, config: GatewayConfig | undefined, work: (opened: OpenedStore) => Promise<number>): Promise<number> {
  let opened: OpenedStore | undefined;
  try {
    opened = await openStore({ store: values.store, dataDir: values["data-dir"], configStore: config?.store }, env);
    return await work(opened);
  } catch (err) {
    if (err instanceof StoreConfigError) io.err(`${NAME}: ${err.message}`);
    else if (err instanceof StoreUnavailableError) io.err(`${NAME}: the store is unreachable; check that the database is up and its address`);
    else if (isSqlState(err)) io.err(`${NAME}: cannot open the store (postgres error ${err.code}: login, database name or permissions)`);
    else throw err;
    return err instanceof StoreConfigError && err.code === "bad_store" ? 2 : 1;
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

function isSqlState(err: unknown): err is { code: string } {
  return typeof err === "object" && err !== null && /^[0-9A-Z]{5}$/.test(String((err as { code?: unknown }).code));
}

async function serve(io: CliIo, values: Values, env: NodeJS.ProcessEnv): Promise<number> {
  if (!values.config) return usage(io, "--config is required");
  const portText = values.port ?? "8080";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return usage(io, "--port must be a port number (0-65535)");
  const config = await loadConfig(io, values.config);
  if (typeof config === "number") return config;
  return withStore(io, values, env, config, (opened) => serveOn(io, values, config, opened, portText));
}

async function serveOn(io: CliIo, values: Values, config: GatewayConfig, opened: OpenedStore, portText: string): Promise<number> {
  const { store } = opened;
  // The OAuth server needs the public URL, which without a configured one is known only once listening.
  let publicUrl = config.publicUrl ?? "http://127.0.0.1";
  const authorizationServer = config.oauth.enabled
    ? gatewayAuthorizationServer({
        config,
        settings: config.oauth,
        store,
        accounts: new StoreAccountDirectory(store),
        apiTokens: new ApiTokens(store, new StoreAccountDirectory(store)),
        publicUrl: () => publicUrl,
        logger: jsonLineLogger(io.err),
        sharedLimits: opened.kind === "postgres",
      })
    : undefined;
  let gateway;
  try {
    gateway = await startGateway({ config, store, host: values.host ?? "127.0.0.1", port: Number(portText), log: io.err, sharedLimits: opened.kind === "postgres", ...(authorizationServer ? { authorizationServer } : {}) });
    publicUrl = gateway.publicUrl;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") io.err(`${NAME}: port ${portText} is already in use`);
    else if (code === "EACCES") io.err(`${NAME}: not allowed to listen on port ${portText} or to use the data dir`);
    else if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") io.err(`${NAME}: cannot listen on that address`);
    else throw err;
    return 1;
  }
  io.out(`hub_gateway ready at ${gateway.url}`);
  const signal = await io.stopRequested;
  io.err(`${NAME}: ${signal} received; stopping tool sessions`);
  await gateway.close();
  return 0;
}

export async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
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
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    return usage(io, (err as Error).message.split("\n")[0]!);
  }
  if (values.help) {
    io.out(USAGE.trimEnd());
    return 0;
  }
  const [command, sub, arg, ...extra] = positionals;
  if (extra.length > 0) return usage(io, "too many arguments");
  if (command === undefined) return serve(io, values, env);
  if (!(command === "user" && sub === "add") && command !== "token") return usage(io, "unknown command");
  const config = values.config === undefined ? undefined : await loadConfig(io, values.config);
  if (typeof config === "number") return config;
  return withStore(io, values, env, config, ({ store }) => (command === "user" ? userAdd(io, store, arg, values) : token(io, store, sub, arg)));
}

function jsonLineLogger(write: (line: string) => void): Logger {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>): void =>
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
  return run(argv, env, {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    readStdin,
    stopRequested: stop.requested,
  }).finally(stop.dispose);
}

runIfExecutedDirectly(import.meta.url, NAME, main);
