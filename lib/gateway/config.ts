// gateway.json as a checked value. Every problem is reported as one line naming the key
// (`tools.mcpdemo.revisions.dev.url must be an http(s) URL`), so an operator can fix it
// without reading code; values are never echoed, since a command line may hold secrets.
import { isAbsolute, resolve } from "node:path";
import { parseConnectorSettings, type ConnectorSettings } from "./hub-connector/settings.ts";
import { parseOAuthSettings, type OAuthSettings } from "./oauth/gateway-settings.ts";

export type RevisionSpec =
  | { readonly kind: "app"; readonly app: string }
  | { readonly kind: "url"; readonly url: string }
  | { readonly kind: "command"; readonly command: readonly string[] };

export interface ToolSpec {
  /** Empty: open to every authenticated user. */
  readonly groups: readonly string[];
  readonly revisions: Readonly<Record<string, RevisionSpec>>;
  /** Listed at `{publicUrl}/mcp` from the gateway's shared catalog (true), or live per caller (false). */
  readonly catalog: boolean;
  /** The revision `{publicUrl}/mcp` lists and calls; `default`. */
  readonly catalogRevision: string;
}

export interface GatewayLimits {
  /** Tool sessions stopped after this long unused; 30 min. */
  readonly idleTimeoutMs: number;
  /** A tool session not ready by then is killed and reported; 30 s. */
  readonly startTimeoutMs: number;
  /** Live tool sessions per user; 8. */
  readonly sessionsPerUser: number;
  /** Live tool sessions in all; 200. */
  readonly sessionsTotal: number;
  /** Largest request body; 16 MiB. */
  readonly maxBodyBytes: number;
  /** Token bucket per user: refill per second, and the burst it can hold. */
  readonly ratePerSecond: number;
  readonly rateBurst: number;
  /**
   * How long a replica trusts an API token, account or running tool session it read from the
   * data dir; a revocation or group change made by another process takes effect within it. 1 s.
   */
  readonly lookupCacheMs: number;
}

export interface GatewayConfig {
  /** `{hub_url}` without a trailing slash; undefined: the address the gateway listens on. */
  readonly publicUrl: string | undefined;
  readonly tools: Readonly<Record<string, ToolSpec>>;
  readonly limits: GatewayLimits;
  /** The built-in OAuth authorization server (section `oauth`; `false` turns it off). */
  readonly oauth: OAuthSettings;
  /** `{publicUrl}/mcp`, the one endpoint for every tool (section `connector`). */
  readonly connector: ConnectorSettings;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  idleTimeoutMs: 30 * 60_000,
  startTimeoutMs: 30_000,
  sessionsPerUser: 8,
  sessionsTotal: 200,
  maxBodyBytes: 16 * 1024 * 1024,
  ratePerSecond: 50,
  rateBurst: 200,
  lookupCacheMs: 1000,
};

/** A config problem; `message` is the whole line, starting with the key. */
export class ConfigError extends Error {
  readonly code = "bad_config";
  constructor(readonly key: string, problem: string) {
    super(`${key} ${problem}`);
  }
}

const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const REVISION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function httpUrl(v: unknown, key: string): string {
  if (typeof v !== "string") throw new ConfigError(key, "must be an http(s) URL");
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

function revision(v: unknown, key: string, baseDir: string): RevisionSpec {
  if (!isObject(v)) throw new ConfigError(key, 'must be an object with one of "app", "url", "command"');
  const kinds = ["app", "url", "command"].filter((k) => k in v);
  if (kinds.length !== 1) throw new ConfigError(key, 'must have exactly one of "app", "url", "command"');
  for (const k of Object.keys(v)) if (k !== kinds[0]) throw new ConfigError(`${key}.${k}`, "is not a known key");
  if ("app" in v) {
    if (typeof v.app !== "string" || v.app === "") throw new ConfigError(`${key}.app`, "must be a file path");
    return { kind: "app", app: isAbsolute(v.app) ? v.app : resolve(baseDir, v.app) };
  }
  if ("url" in v) {
    const url = httpUrl(v.url, `${key}.url`);
    if (!url.startsWith("http:")) throw new ConfigError(`${key}.url`, "must be an http:// URL (the gateway forwards over plain HTTP)");
    return { kind: "url", url: url.endsWith("/") ? url : `${url}/` };
  }
  const command = v.command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === "string" && c !== "")) {
    throw new ConfigError(`${key}.command`, "must be a non-empty array of strings");
  }
  return { kind: "command", command: command as string[] };
}

function tool(v: unknown, key: string, baseDir: string): ToolSpec {
  if (!isObject(v)) throw new ConfigError(key, "must be an object");
  for (const k of Object.keys(v)) if (!["groups", "revisions", "catalog", "catalogRevision"].includes(k)) throw new ConfigError(`${key}.${k}`, "is not a known key");
  let groups: string[] = [];
  if (v.groups !== undefined) {
    if (!Array.isArray(v.groups) || !v.groups.every((g) => typeof g === "string" && GROUP_NAME.test(g))) {
      throw new ConfigError(`${key}.groups`, "must be an array of group names");
    }
    groups = v.groups as string[];
  }
  if (!isObject(v.revisions)) throw new ConfigError(`${key}.revisions`, "must be an object of named revisions");
  const revisions: Record<string, RevisionSpec> = {};
  for (const [name, spec] of Object.entries(v.revisions)) {
    if (!REVISION_NAME.test(name)) throw new ConfigError(`${key}.revisions`, "has a revision name that is not letters, digits, '.', '_' or '-'");
    revisions[name] = revision(spec, `${key}.revisions.${name}`, baseDir);
  }
  if (!revisions.default) throw new ConfigError(`${key}.revisions.default`, "is required");
  if (v.catalog !== undefined && typeof v.catalog !== "boolean") throw new ConfigError(`${key}.catalog`, "must be true or false");
  const catalogRevision = v.catalogRevision ?? "default";
  if (typeof catalogRevision !== "string" || !Object.hasOwn(revisions, catalogRevision)) throw new ConfigError(`${key}.catalogRevision`, "must name one of the tool's revisions");
  return { groups, revisions, catalog: v.catalog !== false, catalogRevision };
}

function positive(v: unknown, key: string, fallback: number, scale = 1): number {
  if (v === undefined) return fallback * scale;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new ConfigError(key, "must be a positive number");
  return v * scale;
}

/** A revocation elsewhere must take effect within a minute whatever the config says. */
const MAX_LOOKUP_CACHE_MS = 60_000;

function upTo(value: number, max: number, key: string): number {
  if (value > max) throw new ConfigError(key, `must be at most ${max / 1000}`);
  return value;
}

function notNegative(v: unknown, key: string, fallback: number, scale = 1): number {
  if (v === undefined) return fallback * scale;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new ConfigError(key, "must be a number, 0 or more");
  return v * scale;
}

function limits(v: unknown): GatewayLimits {
  if (v === undefined) return DEFAULT_LIMITS;
  if (!isObject(v)) throw new ConfigError("limits", "must be an object");
  const known = ["idleMinutes", "startSeconds", "sessionsPerUser", "sessionsTotal", "maxBodyBytes", "ratePerSecond", "rateBurst", "lookupCacheSeconds"];
  for (const k of Object.keys(v)) if (!known.includes(k)) throw new ConfigError(`limits.${k}`, "is not a known key");
  const d = DEFAULT_LIMITS;
  return {
    idleTimeoutMs: positive(v.idleMinutes, "limits.idleMinutes", d.idleTimeoutMs / 60_000, 60_000),
    startTimeoutMs: positive(v.startSeconds, "limits.startSeconds", d.startTimeoutMs / 1000, 1000),
    sessionsPerUser: Math.floor(positive(v.sessionsPerUser, "limits.sessionsPerUser", d.sessionsPerUser)),
    sessionsTotal: Math.floor(positive(v.sessionsTotal, "limits.sessionsTotal", d.sessionsTotal)),
    maxBodyBytes: Math.floor(positive(v.maxBodyBytes, "limits.maxBodyBytes", d.maxBodyBytes)),
    ratePerSecond: positive(v.ratePerSecond, "limits.ratePerSecond", d.ratePerSecond),
    rateBurst: positive(v.rateBurst, "limits.rateBurst", d.rateBurst),
    lookupCacheMs: upTo(notNegative(v.lookupCacheSeconds, "limits.lookupCacheSeconds", d.lookupCacheMs / 1000, 1000), MAX_LOOKUP_CACHE_MS, "limits.lookupCacheSeconds"),
  };
}

/** Checks a parsed gateway.json; relative `app` paths resolve against `baseDir` (the file's folder). */
export function parseGatewayConfig(value: unknown, baseDir: string): GatewayConfig {
  if (!isObject(value)) throw new ConfigError("(top level)", "must be a JSON object");
  for (const k of Object.keys(value)) if (!["publicUrl", "tools", "limits", "oauth", "connector"].includes(k)) throw new ConfigError(k, "is not a known key");
  const publicUrl = value.publicUrl === undefined ? undefined : httpUrl(value.publicUrl, "publicUrl").replace(/\/+$/, "");
  if (!isObject(value.tools)) throw new ConfigError("tools", "must be an object of named tools");
  const tools: Record<string, ToolSpec> = {};
  for (const [name, spec] of Object.entries(value.tools)) {
    if (!TOOL_NAME.test(name)) throw new ConfigError("tools", "has a tool name that is not letters, digits, '_' or '-'");
    tools[name] = tool(spec, `tools.${name}`, baseDir);
  }
  const oauth = parseOAuthSettings(value.oauth, (key, problem) => {
    throw new ConfigError(key, problem);
  });
  const connector = parseConnectorSettings(value.connector, (key, problem) => {
    throw new ConfigError(key, problem);
  });
  return { publicUrl, tools, limits: limits(value.limits), oauth, connector };
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
