// gateway.json as a checked value. Every problem is reported as one line naming the key
// (`tools.mcpdemo.revisions.dev.url must be an http(s) URL`), so an operator can fix it
// without reading code; values are never echoed, since a command line may hold secrets.
import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import { s, type Converted, type Filled, type Infer, type Present, problem, section } from "../../schema/index.ts";
import { adminSchema, parseAdminSettings, type AdminSettings } from "./admin-settings.ts";
import { auditSchema, parseAuditSettings, type AuditSettings } from "./audit-settings.ts";
import { connectorSchema, parseConnectorSettings, type ConnectorSettings } from "./connector-settings.ts";
import { limitsSchema, parseLimits, type GatewayLimits } from "./limits-settings.ts";
import { oauthSchema, parseOAuthSettings, type OAuthSettings } from "../oauth/gateway-settings.ts";
import { checkStoreUrl } from "../store/open-store.ts";
import { parseServed, parseSlurmRevision, servedFile } from "./served-settings.ts";
import { readToolXml } from "../../rappture/tool-xml.ts";
import { parseRegistrySettings, registrySchema, type RegistrySettings } from "./registry-settings.ts";
import { checkStdioProgram, parseStdio } from "./stdio-settings.ts";
import {
  envSchema,
  KINDS,
  ONE_OF,
  runAsSchema,
  TOOL,
  toolSchema,
  type ChildIdentity,
  type RevisionFile,
  type RevisionSpec,
  type ToolFile,
  type ToolSpec,
} from "./tool-settings.ts";
import { isHostSyntax } from "../../http/host-syntax.ts";
import { isToolName } from "../contracts/names.ts";

export type { SlurmRevision } from "./served-settings.ts";
export type { ChildIdentity, Isolation, RevisionSpec, ToolSpec } from "./tool-settings.ts";

/** A config problem; `message` is the whole line, starting with the key. */
export class ConfigError extends Error {
  readonly code = "HUBMCP_BAD_CONFIG";
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super(`${key} ${problem}`);
  }
}

/** How the sections report a problem. */
function fail(key: string, problem: string): never {
  throw new ConfigError(key, problem);
}

const REVISION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** gateway.json as declared: each section's own declaration, composed. */
export const gatewayConfigSchema = problem(
  s.object(
    {
      /** `{hub_url}` without a trailing slash once parsed; undefined: the address the gateway listens on. */
      publicUrl: problem(s.string(), "must be an http(s) URL").optional(),
      /** Host names (optionally `name:port`) served besides publicUrl's, loopback and this machine's addresses (DNS rebinding). */
      allowedHosts: problem(s.array(s.string()), "must be an array of host names (optionally with :port)").optional(),
      tools: problem(s.record(toolSchema), "must be an object of named tools"),
      limits: limitsSchema.optional(),
      /** The built-in OAuth authorization server (`false` turns it off). */
      oauth: oauthSchema.optional(),
      runAs: runAsSchema.optional(),
      env: envSchema.optional(),
      /** A postgres:// URL shared by replicas; undefined: the file store in the data dir. */
      store: problem(s.string(), "must be a postgres://user@host:port/database URL").optional(),
      /** `{publicUrl}/mcp`, the one endpoint for every tool. */
      connector: connectorSchema.optional(),
      /** Who the hub's operators are: the `/admin` page and API. */
      admin: adminSchema.optional(),
      /** What tools registered in the store may ask for. */
      registry: registrySchema.optional(),
      /** Where the audit trail goes; off by default. */
      audit: auditSchema.optional(),
    },
    { additionalProperties: false },
  ),
  "must be a JSON object",
);
/** gateway.json as written (GatewayConfig is what the gateway makes of it). */
export type GatewayConfigFile = Infer<typeof gatewayConfigSchema>;

/** gateway.json as the gateway reads it: each section converted by its settings file, `runAs` and `env` folded into each tool. */
export type GatewayConfig = Converted<
  Present<Filled<GatewayConfigFile, "allowedHosts">, "publicUrl">,
  {
    tools: Readonly<Record<string, ToolSpec>>;
    limits: GatewayLimits;
    oauth: OAuthSettings;
    connector: ConnectorSettings;
    admin: AdminSettings;
    registry: RegistrySettings;
    audit: AuditSettings;
  },
  "runAs" | "env"
>;

const GATEWAY = section(gatewayConfigSchema);

function httpUrl(v: string, key: string): string {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new ConfigError(key, "must be an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(key, "must be an http(s) URL");
  if (url.username || url.password || url.search || url.hash) throw new ConfigError(key, "must not carry credentials, a query or a fragment");
  return url.href;
}

/** The identity settings of a tool over the gateway's. */
function identity(tool: ChildIdentity, top: ChildIdentity): ChildIdentity {
  const runAs = tool.runAs ?? top.runAs;
  const env = tool.env ?? top.env;
  return { ...(runAs === undefined ? {} : { runAs }), ...(env === undefined ? {} : { env }) };
}

const served = (file: ReturnType<typeof parseServed>) => ("app" in file ? { kind: "app" as const, ...file } : { kind: "rappture" as const, ...file });

function revision(v: RevisionFile, key: string, baseDir: string, who: ChildIdentity): RevisionSpec {
  const kinds = KINDS.filter((k) => v[k] !== undefined);
  if (kinds.length !== 1) throw new ConfigError(key, `must have exactly ${ONE_OF}`);
  const startsMcp = kinds[0] === "app" || kinds[0] === "rappture" || kinds[0] === "stdio";
  if (!startsMcp && v.isolation !== undefined) throw new ConfigError(`${key}.isolation`, "is not a known key");
  if (startsMcp) {
    const spec =
      v.stdio !== undefined ? { kind: "stdio" as const, stdio: parseStdio(v.stdio, baseDir), cwd: baseDir } : served(parseServed(v, key, baseDir, fail));
    if (v.isolation === undefined || v.isolation === "process") return { ...spec, ...who };
    // One process for everyone has one identity: it cannot be each person's own account.
    if (who.runAs === "@person") throw new ConfigError(`${key}.isolation`, 'cannot be "shared" when runAs is "@person"');
    // A stdio server's questions and logs name no call: shared, they could reach another person.
    if (spec.kind === "stdio") throw new ConfigError(`${key}.isolation`, 'cannot be "shared" for a stdio server (its requests name no call)');
    return { ...spec, isolation: "shared", ...who };
  }
  if (v.slurm !== undefined) return { kind: "slurm", slurm: parseSlurmRevision(v.slurm, `${key}.slurm`, baseDir, fail), ...who };
  if (v.url !== undefined) {
    const url = httpUrl(v.url, `${key}.url`);
    if (!url.startsWith("http:")) throw new ConfigError(`${key}.url`, "must be an http:// URL (the gateway forwards over plain HTTP)");
    return { kind: "url", url: url.endsWith("/") ? url : `${url}/` };
  }
  return { kind: "command", command: v.command!, ...who };
}

function tool(v: ToolFile, key: string, baseDir: string, top: ChildIdentity): ToolSpec {
  const who = identity(v, top);
  const revisions: Record<string, RevisionSpec> = {};
  for (const [name, spec] of Object.entries(v.revisions)) {
    if (!REVISION_NAME.test(name)) throw new ConfigError(`${key}.revisions`, "has a revision name that is not letters, digits, '.', '_' or '-'");
    revisions[name] = revision(spec, `${key}.revisions.${name}`, baseDir, who);
  }
  const defaultRevision = v.defaultRevision ?? "default";
  if (v.defaultRevision === undefined && !revisions.default) throw new ConfigError(`${key}.revisions.default`, "is required");
  if (!Object.hasOwn(revisions, defaultRevision)) throw new ConfigError(`${key}.defaultRevision`, "must name one of the tool's revisions");
  const catalogRevision = v.catalogRevision ?? defaultRevision;
  if (!Object.hasOwn(revisions, catalogRevision)) throw new ConfigError(`${key}.catalogRevision`, "must name one of the tool's revisions");
  return { groups: v.groups ?? [], revisions, catalog: v.catalog !== false, catalogRevision, defaultRevision };
}

/**
 * One tool of gateway.json's `tools` section, or one registered in the store: the same rules
 * and the same one-line errors (`tools.NAME…`) for both.
 */
export function parseTool(name: string, v: unknown, baseDir: string, top: ChildIdentity): ToolSpec {
  if (!isToolName(name)) throw new ConfigError("tools", "has a tool name that is not letters, digits, '_' or '-'");
  const key = `tools.${name}`;
  return tool(TOOL.check(v, key, fail), key, baseDir, top);
}

/** Checks a parsed gateway.json; relative `app` paths resolve against `baseDir` (the file's folder). */
export function parseGatewayConfig(value: unknown, baseDir: string): GatewayConfig {
  const file = GATEWAY.check(value, "", fail);
  const top = identity(file, {});
  const publicUrl = file.publicUrl === undefined ? undefined : httpUrl(file.publicUrl, "publicUrl").replace(/\/+$/, "");
  const tools: Record<string, ToolSpec> = {};
  for (const [name, spec] of Object.entries(file.tools)) tools[name] = parseTool(name, spec, baseDir, top);
  const allowedHosts = file.allowedHosts ?? [];
  if (!allowedHosts.every(isHostSyntax)) throw new ConfigError("allowedHosts", "must be an array of host names (optionally with :port)");
  let store: string | undefined;
  try {
    if (file.store !== undefined) store = checkStoreUrl(file.store, "store");
  } catch {
    throw new ConfigError("store", "must be a postgres://user@host:port/database URL");
  }
  return {
    publicUrl,
    allowedHosts,
    tools,
    limits: parseLimits(file.limits, fail),
    oauth: parseOAuthSettings(file.oauth, fail),
    connector: parseConnectorSettings(file.connector, fail),
    admin: parseAdminSettings(file.admin, fail),
    registry: parseRegistrySettings(file.registry, top, fail),
    audit: parseAuditSettings(file.audit, baseDir, fail),
    ...(store !== undefined ? { store } : {}),
  };
}

/** The same from the file's text. */
export function parseGatewayConfigText(text: string, baseDir: string): GatewayConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError("(file)", "is not valid JSON");
  }
  return parseGatewayConfig(value, baseDir);
}

function checkToolXml(key: string, file: string): void {
  try {
    readToolXml(file);
  } catch (err) {
    // readToolXml throws only ToolXmlError: one line naming the file, the line and what is wrong.
    throw new ConfigError(key, `is not a usable tool.xml: ${(err as Error).message}`);
  }
}

/**
 * Every `app` and `rappture` revision's file exists: checked at start, so a wrong path stops
 * the gateway with one line naming the file instead of a 502 on the first call. The path is
 * named (unlike other values) because it is what the operator must fix. Neither the file nor
 * its folder may be writable by every account: any of them could change what the tool's
 * account runs (an app's imports, a tool.xml's command and the programs beside it).
 */
export async function checkAppFiles(config: GatewayConfig): Promise<void> {
  for (const [tool, spec] of Object.entries(config.tools)) await checkToolFiles(tool, spec);
}

/**
 * The same for one tool. `owners`: when given, the uids a file and its folder may belong to
 * (a registered tool's file: another account that owns it could change it at any time).
 */
export async function checkToolFiles(tool: string, spec: ToolSpec, owners?: readonly number[]): Promise<void> {
  for (const [name, rev] of Object.entries(spec.revisions)) {
    if (rev.kind === "url" || rev.kind === "command") continue;
    if (rev.kind === "stdio") {
      await checkStdioProgram(`tools.${tool}.revisions.${name}.stdio`, rev.stdio, fail, owners);
      continue;
    }
    const { key: k, file } = servedFile(rev.kind === "slurm" ? rev.slurm : rev);
    const key = `tools.${tool}.revisions.${name}${rev.kind === "slurm" ? ".slurm" : ""}`;
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) throw new ConfigError(`${key}.${k}`, `names ${file}, which ${found ? "is not a file" : "does not exist"}`);
    const parent = await stat(dirname(file));
    if (((found.mode | parent.mode) & 0o002) !== 0) throw new ConfigError(`${key}.${k}`, `names ${file}, which or whose folder every account may write`);
    if (owners && (!owners.includes(found.uid) || !owners.includes(parent.uid) || ((found.mode | parent.mode) & 0o020) !== 0))
      throw new ConfigError(`${key}.${k}`, `names ${file}, which or whose folder another account owns or its group may write`);
    // A tool.xml its session could not publish is one line now, not a failed start per person later.
    if (k === "rappture") checkToolXml(`${key}.${k}`, file);
    if (rev.kind !== "slurm") continue;
    const folder = await stat(rev.slurm.workdir).catch(() => undefined);
    if (!folder?.isDirectory()) throw new ConfigError(`${key}.workdir`, `names ${rev.slurm.workdir}, which ${folder ? "is not a folder" : "does not exist"}`);
  }
}
