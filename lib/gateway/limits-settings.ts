// gateway.json's `limits` section: how long and how much the gateway and its tool sessions
// may take. Parsed apart from ./config.ts, which hands it the config error to throw.

type Fail = (key: string, problem: string) => never;

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
  /** Slowloris bounds: request headers within 20 s, a whole request within 120 s, idle keep-alive 5 s. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Open client connections; 1,000 (an idle one makes room for a new one). */
  readonly maxConnections: number;
  /** Requests one person may have in flight to one tool server; 16 (429 beyond). */
  readonly upstreamRequestsPerUser: number;
  /** Bytes of answers being rewritten (read whole) at once, all callers together; 128 MiB (503 beyond). */
  readonly rewriteBudgetBytes: number;
  /** How long a session proxy cookie (from `GET …/sse`) stays valid; 8 h. */
  readonly proxyCookieMs: number;
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
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1000,
  upstreamRequestsPerUser: 16,
  rewriteBudgetBytes: 128 * 1024 * 1024,
  proxyCookieMs: 8 * 3_600_000,
};

/** Pooled connections per tool server (forward.ts's agent). */
export const UPSTREAM_SOCKETS = 256;

/** A revocation elsewhere must take effect within a minute whatever the config says. */
const MAX_LOOKUP_CACHE_MS = 60_000;

const KNOWN = [
  "idleMinutes",
  "startSeconds",
  "sessionsPerUser",
  "sessionsTotal",
  "maxBodyBytes",
  "ratePerSecond",
  "rateBurst",
  "lookupCacheSeconds",
  "proxyCookieMinutes",
  "headersSeconds",
  "requestSeconds",
  "keepAliveSeconds",
  "maxConnections",
  "upstreamRequestsPerUser",
  "rewriteBudgetBytes",
];

/** Parses the section; `fail(key, problem)` throws the caller's config error. */
export function parseLimits(v: unknown, fail: Fail): GatewayLimits {
  if (v === undefined) return DEFAULT_LIMITS;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("limits", "must be an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KNOWN.includes(k)) fail(`limits.${k}`, "is not a known key");
  const d = DEFAULT_LIMITS;
  /** `key` as written (in units of `scale` stored ones), or the default. */
  const number = (key: string, fallback: number, scale: number, zeroAllowed: boolean): number => {
    const x = o[key];
    if (x === undefined) return fallback * scale;
    if (typeof x !== "number" || !Number.isFinite(x) || x < 0 || (x === 0 && !zeroAllowed))
      return fail(`limits.${key}`, zeroAllowed ? "must be a number, 0 or more" : "must be a positive number");
    return x * scale;
  };
  const positive = (key: string, fallback: number, scale = 1): number => number(key, fallback, scale, false);
  const whole = (key: string, fallback: number): number => Math.floor(positive(key, fallback));
  const lookupCacheMs = number("lookupCacheSeconds", d.lookupCacheMs / 1000, 1000, true);
  if (lookupCacheMs > MAX_LOOKUP_CACHE_MS) fail("limits.lookupCacheSeconds", `must be at most ${MAX_LOOKUP_CACHE_MS / 1000}`);
  const upstreamRequestsPerUser = whole("upstreamRequestsPerUser", d.upstreamRequestsPerUser);
  // One person must never hold every pooled connection to a tool server (see forward.ts).
  if (upstreamRequestsPerUser > UPSTREAM_SOCKETS / 2) fail("limits.upstreamRequestsPerUser", `must be at most ${UPSTREAM_SOCKETS / 2}`);
  return {
    idleTimeoutMs: positive("idleMinutes", d.idleTimeoutMs / 60_000, 60_000),
    startTimeoutMs: positive("startSeconds", d.startTimeoutMs / 1000, 1000),
    sessionsPerUser: whole("sessionsPerUser", d.sessionsPerUser),
    sessionsTotal: whole("sessionsTotal", d.sessionsTotal),
    maxBodyBytes: whole("maxBodyBytes", d.maxBodyBytes),
    ratePerSecond: positive("ratePerSecond", d.ratePerSecond),
    rateBurst: positive("rateBurst", d.rateBurst),
    proxyCookieMs: positive("proxyCookieMinutes", d.proxyCookieMs / 60_000, 60_000),
    lookupCacheMs,
    headersTimeoutMs: positive("headersSeconds", d.headersTimeoutMs / 1000, 1000),
    requestTimeoutMs: positive("requestSeconds", d.requestTimeoutMs / 1000, 1000),
    keepAliveTimeoutMs: positive("keepAliveSeconds", d.keepAliveTimeoutMs / 1000, 1000),
    maxConnections: whole("maxConnections", d.maxConnections),
    upstreamRequestsPerUser,
    rewriteBudgetBytes: whole("rewriteBudgetBytes", d.rewriteBudgetBytes),
  };
}
