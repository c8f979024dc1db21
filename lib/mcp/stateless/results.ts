// What a 2026-07-28 result carries beyond its payload: `resultType`, the server's identity
// in `_meta`, and on cacheable results the `ttlMs`/`cacheScope` hints. Also the
// `server/discover` result, built from a plain description of the server.
import { META, STATELESS_VERSIONS } from "./envelope.ts";

export type CacheScope = "public" | "private";

export interface CacheHint {
  ttlMs: number;
  cacheScope: CacheScope;
}

/** Per-server default hints, with overrides per list method and per resource URI. */
export interface CachePolicy {
  default?: CacheHint;
  methods?: Partial<Record<CacheableMethod, CacheHint>>;
  resources?: Record<string, CacheHint>;
}

/** Results the revision makes cacheable: these must carry both hints. */
export const CACHEABLE_METHODS = [
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "skills/list",
  "skills/get",
] as const;
export type CacheableMethod = (typeof CACHEABLE_METHODS)[number];

/** Immediately stale and per-user: safe for any server that said nothing about caching. */
export const NO_CACHE: CacheHint = { ttlMs: 0, cacheScope: "private" };

export function isCacheable(method: string): method is CacheableMethod {
  return (CACHEABLE_METHODS as readonly string[]).includes(method);
}

/** Throws a TypeError for a hint the wire would reject, so a bad configuration fails at start. */
export function checkCacheHint(hint: CacheHint, where: string): CacheHint {
  if (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0) throw new TypeError(`${where}: ttlMs must be a non-negative integer`);
  if (hint.cacheScope !== "public" && hint.cacheScope !== "private") throw new TypeError(`${where}: cacheScope must be "public" or "private"`);
  return hint;
}

/** The hints for one result: a resource's own, else the method's, else the server's, else NO_CACHE. */
export function cacheHintFor(policy: CachePolicy | undefined, method: CacheableMethod, uri?: string): CacheHint {
  const own = method === "resources/read" && uri !== undefined ? policy?.resources?.[uri] : undefined;
  return own ?? policy?.methods?.[method] ?? policy?.default ?? NO_CACHE;
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

export interface DecorateOptions {
  serverInfo?: Implementation;
  cache?: CachePolicy;
  /** The `uri` of a resources/read, for its per-resource hint. */
  uri?: string;
}

/**
 * A handler's result as a 2026 client receives it: `resultType` defaulting to "complete"
 * (an `input_required` or `task` result keeps its own), `serverInfo` merged into `_meta`,
 * and hints on cacheable methods unless the handler set them. Returns a new object.
 */
export function decorateResult(method: string, result: Record<string, unknown>, options: DecorateOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result };
  if (typeof out.resultType !== "string") out.resultType = "complete";
  if (options.serverInfo) {
    const meta = typeof out._meta === "object" && out._meta !== null ? (out._meta as Record<string, unknown>) : {};
    out._meta = { ...meta, [META.serverInfo]: { ...options.serverInfo } };
  }
  if (isCacheable(method) && out.resultType === "complete") {
    const hint = cacheHintFor(options.cache, method, options.uri);
    if (out.ttlMs === undefined) out.ttlMs = hint.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hint.cacheScope;
  }
  return out;
}

/** What `server/discover` reports, gathered by the server from its registry and options. */
export interface ServerDescription {
  serverInfo: Implementation;
  instructions?: string;
  hasTools: boolean;
  hasPrompts: boolean;
  hasResources: boolean;
  /** Completions are offered when any prompt or template has a completer. */
  hasCompletions: boolean;
  /** Whether list changes and resource updates reach `subscriptions/listen` streams. */
  listChanged: boolean;
  resourceSubscribe: boolean;
  logging: boolean;
  /** Extension ids the server implements, e.g. "io.modelcontextprotocol/tasks", with their settings. */
  extensions?: Record<string, Record<string, unknown>>;
  /** The 2025-11-25 `tasks` capability, for sessions only (2026-07-28 has no such slot). */
  tasks?: Record<string, unknown>;
  supportedVersions?: readonly string[];
}

/** ServerCapabilities in the 2026-07-28 shape: no `tasks` slot, extensions under `extensions`. */
export function serverCapabilities(d: ServerDescription): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (d.hasTools) caps.tools = d.listChanged ? { listChanged: true } : {};
  if (d.hasPrompts) caps.prompts = d.listChanged ? { listChanged: true } : {};
  if (d.hasResources) {
    const resources: Record<string, boolean> = {};
    if (d.listChanged) resources.listChanged = true;
    if (d.resourceSubscribe) resources.subscribe = true;
    caps.resources = resources;
  }
  if (d.hasCompletions) caps.completions = {};
  if (d.logging) caps.logging = {};
  if (d.extensions && Object.keys(d.extensions).length > 0) caps.extensions = { ...d.extensions };
  return caps;
}

/**
 * ServerCapabilities as `initialize` answers them (2025-11-25 and earlier): the same builder,
 * plus the `tasks` slot. Every MCP endpoint (a tool server, the gateway's /mcp) answers both
 * revisions from one description, so they cannot disagree.
 */
export function sessionCapabilities(d: ServerDescription): Record<string, unknown> {
  const caps = serverCapabilities(d);
  if (d.tasks) caps.tasks = d.tasks;
  return caps;
}

/**
 * The `server/discover` result. `supportedVersions` lists only the stateless revisions by
 * default: a client picks one of them for its `_meta`, and the initialize-era versions are
 * negotiated by `initialize`, not by a per-request envelope.
 */
export function discoverResult(d: ServerDescription, cache?: CachePolicy): Record<string, unknown> {
  const result: Record<string, unknown> = {
    supportedVersions: [...(d.supportedVersions ?? STATELESS_VERSIONS)],
    capabilities: serverCapabilities(d),
  };
  if (d.instructions) result.instructions = d.instructions;
  return decorateResult("server/discover", result, { serverInfo: d.serverInfo, cache });
}
