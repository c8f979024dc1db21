// Every option of McpServer resolved once, defaults included: the facade, the HTTP app and
// the listener read the resolved values and apply no default of their own.
import type { Icon } from "./registry/common.ts";
import type { ServerInfo } from "./mcp/core.ts";
import { checkCacheHint, type CachePolicy } from "./mcp/stateless/results.ts";
import type { StatelessOptions } from "./mcp/stateless/serve.ts";
import type { Logger } from "./util/logger.ts";
import type { AsyncOptions } from "./tasks/store.ts";
import type { SessionStore, SessionTableOptions } from "./session/session-table.ts";
import { DEFAULT_MAX_BODY } from "./http/body.ts";
import type { HostGuardOptions } from "./http/host-guard.ts";
import type { ServeLimits } from "./http/listen.ts";
import type { HttpOptions } from "./http/types.ts";

export interface McpServerOptions {
  version?: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent to clients in `initialize`: how to use this server's tools. */
  instructions?: string;
  /** Where the library reports; silent by default. */
  logger?: Logger;
  /** Options of the built-in session table: idle expiry and the cap. */
  sessions?: SessionTableOptions;
  /**
   * Where sessions live, instead of the built-in table (which `sessions` configures): any
   * SessionStore, typically one wrapping a SessionTable (both exported). The server never
   * closes a store it was given.
   */
  sessionStore?: SessionStore;
  /** Largest request body in bytes (413 beyond it); 16 MiB by default. */
  maxBodyBytes?: number;
  /** SSE keepalive comment interval; 15 s by default. */
  keepaliveMs?: number;
  /** Unread bytes a client's stream may hold before it is dropped; 4 MiB by default. */
  maxStreamBufferBytes?: number;
  /** Time allowed to receive request headers; 20 s by default. */
  headersTimeoutMs?: number;
  /** Time allowed to receive a whole request; 60 s by default. */
  requestTimeoutMs?: number;
  /** How long close() waits for running calls; 5 s by default. */
  closeTimeoutMs?: number;
  /** Open connections at most (an idle one makes room for a new one); 4,096 by default. */
  maxConnections?: number;
  /** Entries per page of `tools/list`, `resources/list` and the other lists; 100 by default. */
  pageSize?: number;
  /** Most messages one JSON-RPC batch may hold (400 beyond it); 100 by default. */
  maxBatchSize?: number;
  /** Jobs and tasks of async tools: lifetime, caps, the REST wait. */
  async?: AsyncOptions;
  /**
   * A directory (made 0700 if missing) where async runs are kept as they change, so a server
   * restarted on it still answers for runs finished before, until their TTL, and reports runs
   * the restart cut off as failed. Defaults to `$HUBMCP_STATE_DIR` (start_mcp's `--state-dir`);
   * unset, runs live in memory only.
   */
  stateDir?: string;
  /**
   * MCP 2026-07-28: caching hints (`ttlMs`, `cacheScope`) of discover, list and read results,
   * by default, per method and per resource URI. Unset, every result is `ttlMs: 0, private`.
   */
  cache?: CachePolicy;
  /**
   * MCP 2026-07-28: the HMAC key (at least 32 bytes) sealing `requestState` between
   * input_required rounds. Give every process behind one load balancer the same key; a
   * random one per process by default.
   */
  requestStateKey?: Buffer;
  /** DNS-rebinding guard (see HostGuardOptions); `listen()` options override these. */
  allowedHosts?: string[];
  allowedOrigins?: string[];
  trustProxy?: boolean;
  /** Events each SSE stream keeps for Last-Event-ID replay; 100 by default. */
  replayEvents?: number;
  /** Reconnection delay announced in each stream's priming event; 1 s by default. */
  sseRetryMs?: number;
  /**
   * How long a POST into a legacy `/sse` session is held for its answer; past it the POST
   * is released with 202 and the answer goes on the stream. 1 s by default.
   */
  sseHoldMs?: number;
  /** The browser tool console at `GET /`; on by default, `false` switches it off. */
  console?: boolean;
}

export interface ResolvedServerOptions {
  readonly info: ServerInfo;
  readonly instructions: string | undefined;
  readonly logger: Logger | undefined;
  readonly pageSize: number;
  readonly maxBatchSize: number;
  readonly sessions: SessionTableOptions | undefined;
  readonly sessionStore: SessionStore | undefined;
  readonly async: AsyncOptions | undefined;
  readonly stateless: StatelessOptions;
  /** The HTTP app's options but the host guard, which depends on the bound host. */
  readonly http: Omit<HttpOptions, "guard">;
  /** Host/Origin guard defaults; `listen()` and `handler()` options override them. */
  readonly guard: HostGuardOptions;
  readonly limits: ServeLimits;
}

/** Most messages one JSON-RPC batch may hold, unless a server says otherwise; the gateway's /mcp holds to it too. */
export const DEFAULT_MAX_BATCH_SIZE = 100;

export function resolveServerOptions(name: string, options: McpServerOptions): ResolvedServerOptions {
  const o = options;
  const info: ServerInfo = { name, version: o.version ?? "1.0.0" };
  if (o.title) info.title = o.title;
  if (o.description) info.description = o.description;
  if (o.websiteUrl) info.websiteUrl = o.websiteUrl;
  if (o.icons) info.icons = o.icons;
  return {
    info,
    instructions: o.instructions,
    logger: o.logger,
    pageSize: o.pageSize ?? 100,
    maxBatchSize: o.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    sessions: o.sessions,
    sessionStore: o.sessionStore,
    async: o.async,
    stateless: { cache: checkCachePolicy(o.cache), requestStateKey: o.requestStateKey },
    http: {
      maxBodyBytes: o.maxBodyBytes ?? DEFAULT_MAX_BODY,
      keepaliveMs: o.keepaliveMs ?? 15_000,
      maxStreamBufferBytes: o.maxStreamBufferBytes ?? 4 * 1024 * 1024,
      replay: { maxEvents: o.replayEvents ?? 100, retryMs: o.sseRetryMs ?? 1000 },
      sseHoldMs: o.sseHoldMs ?? 1000,
      console: o.console ?? true,
    },
    guard: { allowedHosts: o.allowedHosts, allowedOrigins: o.allowedOrigins, trustProxy: o.trustProxy },
    limits: {
      headersTimeoutMs: o.headersTimeoutMs ?? 20_000,
      requestTimeoutMs: o.requestTimeoutMs ?? 60_000,
      keepAliveTimeoutMs: 5_000,
      // Room for a class holding event streams open (each one a connection) with calls beside them.
      maxConnections: o.maxConnections ?? 4096,
      closeTimeoutMs: o.closeTimeoutMs ?? 5_000,
    },
  };
}

/** Every hint of a cache policy checked at construction, so a bad one fails at start. */
function checkCachePolicy(policy: CachePolicy | undefined): CachePolicy | undefined {
  if (policy === undefined) return undefined;
  if (policy.default) checkCacheHint(policy.default, "cache.default");
  for (const [method, hint] of Object.entries(policy.methods ?? {})) if (hint) checkCacheHint(hint, `cache.methods[${method}]`);
  for (const [uri, hint] of Object.entries(policy.resources ?? {})) checkCacheHint(hint, `cache.resources[${uri}]`);
  return policy;
}
