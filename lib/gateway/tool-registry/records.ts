// Tools registered in the store: one record per tool in `registry-tools`, holding the tool
// exactly as gateway.json's `tools` section would (so one parser checks both), and one
// counter in `registry-version`, raised after every change. Replicas read the counter on a
// clock (one small record) and read the tools again only when it moved.
import { isAbsolute } from "node:path";
import { isRecord } from "../../util/guards.ts";
import { checkToolFiles, ConfigError, parseTool, type GatewayConfig, type ToolSpec } from "../config/gateway-config.ts";
import type { RecordStore } from "../contracts/interfaces.ts";

export const REGISTRY = "registry-tools";
const VERSION = "registry-version";
const VERSION_ID = "tools";

/** A tool as gateway.json's `tools.NAME` holds it. */
export type RawTool = Record<string, unknown>;

export interface RegisteredTool {
  readonly tool: RawTool;
  /** Who changed it last (an account, or `cli`), and when. */
  readonly by: string;
  readonly at: string;
}

export interface RegistryVersion {
  readonly n: number;
  /** The change that raised it asked for the sessions of removed revisions to end at once. */
  readonly now?: boolean;
}

export function readVersion(store: RecordStore): Promise<RegistryVersion | undefined> {
  return store.get<RegistryVersion>(VERSION, VERSION_ID);
}

/** After a change: every replica reads the tools again. */
export async function bumpVersion(store: RecordStore, now: boolean): Promise<void> {
  await store.update<RegistryVersion>(VERSION, VERSION_ID, (cur) => ({ n: (cur?.n ?? 0) + 1, ...(now ? { now: true } : {}) }));
}

/** The account a file of a registered tool, and its folder, may belong to: root or the gateway's own. */
export function trustedOwners(): number[] {
  const own = process.getuid?.();
  return own === undefined || own === 0 ? [0] : [0, own];
}

/** A registered tool's files are named in full: there is no config file's folder to be relative to. Run once the tool parsed. */
function checkAbsolute(name: string, tool: RawTool): void {
  for (const [rev, spec] of Object.entries(tool.revisions as Record<string, Record<string, unknown>>)) {
    const places: Array<[string, Record<string, unknown>]> = [[`tools.${name}.revisions.${rev}`, spec]];
    if (isRecord(spec.slurm)) places.push([`tools.${name}.revisions.${rev}.slurm`, spec.slurm]);
    for (const [key, o] of places)
      for (const k of ["app", "rappture", "workdir"])
        if (typeof o[k] === "string" && !isAbsolute(o[k])) throw new ConfigError(`${key}.${k}`, "must be an absolute path in a registered tool");
  }
}

/** What a registered tool may ask for beyond gateway.json's own tools: only what `registry` allows. */
function checkAllowed(name: string, tool: RawTool, config: Pick<GatewayConfig, "registry">): void {
  const { runAs, env } = config.registry;
  if (tool.runAs !== undefined && !runAs.includes(tool.runAs as string))
    throw new ConfigError(`tools.${name}.runAs`, "is not an account gateway.json's registry.runAs allows");
  if (Array.isArray(tool.env) && !tool.env.every((n) => env.includes(n as string)))
    throw new ConfigError(`tools.${name}.env`, "names a variable gateway.json's registry.env does not allow");
}

/** A registered tool checked as gateway.json's are, and then against the registry's own rules; files not looked at. */
export function parseRegistered(name: string, tool: RawTool, config: Pick<GatewayConfig, "registry">): ToolSpec {
  const spec = parseTool(name, tool, "/", config.registry.inherited);
  checkAbsolute(name, tool);
  checkAllowed(name, tool, config);
  return spec;
}

/** The same with its files: they exist, and no other account can change them. */
export async function checkRegistered(name: string, tool: RawTool, config: Pick<GatewayConfig, "registry">): Promise<ToolSpec> {
  const spec = parseRegistered(name, tool, config);
  await checkToolFiles(name, spec, trustedOwners());
  return spec;
}
