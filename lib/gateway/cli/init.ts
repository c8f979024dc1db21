// `hub_gateway init`: an operator's first gateway in one command. It writes a gateway.json
// serving one app on this machine, a data dir only its owner can read, and a first user,
// then prints that user's API token (shown once, stored only as a hash), the command that
// starts the gateway and the one URL every MCP client takes.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, stat, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { basename, dirname, extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountError, StoreAccountDirectory } from "../identity/accounts.ts";
import { ApiTokens } from "../identity/api-tokens.ts";
import { toolResource } from "../identity/auth.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { isToolName, isUserName } from "../contracts/names.ts";
import { checkDataDir, DataDirError, FileRecordStore } from "../store/file-record-store.ts";
import { StoreFullError } from "../contracts/store-errors.ts";
import { NAME, passwordFromStdin, usage, type CliIo } from "./io.ts";

export interface InitArgs {
  app?: string;
  tool?: string;
  user?: string;
  config?: string;
  dataDir: string;
  port: number;
  passwordStdin: boolean;
  /** The script this process runs (process.argv[1]): the printed start command repeats how init was invoked. */
  script?: string;
  /** `--store postgres://…`: accounts and tokens go to that database, opened by the caller; no data dir. */
  store?: { records: RecordStore; url: string };
}

/** This package's demo app: beside the sources in a clone, absent from a packed install. */
export function demoApp(): string | undefined {
  for (const up of ["../../../", "../../../../"]) {
    const file = fileURLToPath(new URL(`${up}fixtures/demo/app.ts`, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

function defaultUser(): string {
  try {
    const name = userInfo().username;
    if (isUserName(name)) return name;
  } catch {
    // no passwd entry for this uid
  }
  return "admin";
}

/** Creates the data dir 0700, or accepts an existing one the file store would accept (checkDataDir). */
async function prepareDataDir(dir: string): Promise<string | undefined> {
  await mkdir(dirname(dir), { recursive: true });
  try {
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o700);
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  try {
    await checkDataDir(dir);
    return undefined;
  } catch (err) {
    if (err instanceof DataDirError) return err.message;
    throw err;
  }
}

/** A path as one shell word, so the printed command can be pasted as is. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that runs hub_gateway again the way this init was run: `npx hub_gateway` in a
 * clone, `node /abs/dist/cli/hub_gateway.js` from a copied folder (where no hub_gateway is on
 * PATH), else the hub_gateway that PATH found.
 */
export function startCommand(env: NodeJS.ProcessEnv, script: string | undefined): string {
  if (env.npm_command === "exec") return "npx hub_gateway";
  if (script === undefined || !/\.[cm]?js$/.test(script)) return "hub_gateway";
  return `node ${shellWord(script)}`;
}

export async function initCommand(io: CliIo, env: NodeJS.ProcessEnv, a: InitArgs): Promise<number> {
  const fail = (code: number, message: string): number => {
    io.err(`${NAME}: ${message}`);
    return code;
  };
  // The port goes into publicUrl, so it must be the one the gateway will listen on.
  if (a.port === 0) return usage(io, "init needs a fixed --port (the URL clients use names it)");
  const app = a.app !== undefined ? resolve(a.app) : demoApp();
  if (app === undefined) return usage(io, "this install has no demo app; give --app FILE");
  const tool = a.tool ?? (a.app === undefined ? "mcpdemo" : basename(app, extname(app)).replace(/[^A-Za-z0-9_-]/g, "_"));
  if (!isToolName(tool)) return usage(io, "--tool must be letters, digits, '_' or '-' (64 at most), starting with a letter or digit");
  const user = a.user ?? defaultUser();
  const configFile = resolve(a.config ?? "gateway.json");
  const publicUrl = `http://127.0.0.1:${a.port}`;
  const config: { publicUrl: string; tools: Record<string, unknown>; store?: string } = { publicUrl, tools: { [tool]: { revisions: { default: { app } } } } };
  const found = await stat(app).catch(() => undefined);
  if (!found?.isFile()) return fail(2, `the app ${app} ${found ? "is not a file" : "does not exist"}`);
  if (existsSync(configFile)) return fail(1, `${configFile} exists; init writes a new one: remove it or give --config OTHER`);
  // The URL is written into gateway.json: its password belongs in HUBMCP_STORE_PASSWORD instead.
  if (a.store && new URL(a.store.url).password !== "")
    return fail(2, "give the store's password in HUBMCP_STORE_PASSWORD, not in the --store URL (init writes the URL into gateway.json)");
  const dataDir = resolve(a.dataDir);
  if (!a.store) {
    const unsafe = await prepareDataDir(dataDir);
    if (unsafe) return fail(2, unsafe);
  }
  const store = a.store?.records ?? new FileRecordStore(dataDir);
  if (a.store) config.store = a.store.url;
  const generated = a.passwordStdin ? undefined : randomBytes(15).toString("base64url");
  const password = generated ?? (await passwordFromStdin(io));
  try {
    await new StoreAccountDirectory(store).add(user, password, []);
  } catch (err) {
    if (err instanceof StoreFullError) return fail(1, err.message);
    if (!(err instanceof AccountError)) throw err;
    return fail(
      err.code === "HUBMCP_USER_EXISTS" ? 1 : 2,
      `${err.message}${err.code === "HUBMCP_USER_EXISTS" ? "; give --user OTHER or another --data-dir" : ""}`,
    );
  }
  const token = (await new ApiTokens(store, new StoreAccountDirectory(store)).create(user))!;
  await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`, { flag: "wx" });
  io.out(`wrote ${configFile}: tool ${tool} serves ${app}`);
  io.out(a.store ? `store ${a.store.url} (password from HUBMCP_STORE_PASSWORD), user ${user}` : `data dir ${dataDir} (mode 700), user ${user}`);
  io.out(`API token of ${user} (shown only this once; the ${a.store ? "store" : "data dir"} keeps only a hash):`);
  io.out(`  ${token.token}`);
  if (generated) io.out(`password of ${user}, for signing in from OAuth clients (shown only this once): ${generated}`);
  io.out("start the gateway:");
  const where = a.store ? "" : ` --data-dir ${shellWord(dataDir)}`;
  io.out(`  ${startCommand(env, a.script)} --config ${shellWord(configFile)}${where} --port ${a.port}${a.store ? "   (with HUBMCP_STORE_PASSWORD set)" : ""}`);
  io.out("then give every MCP client (Claude, ChatGPT, VS Code, Inspector, mcp-remote) this URL:");
  io.out(`  ${toolResource(publicUrl, tool)}`);
  io.out(`and hub_bridge: HUB_API=${publicUrl} HUB_TOOLS=${tool} HUB_TOKEN=<the token above>`);
  return 0;
}
