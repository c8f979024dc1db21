// gateway.json's `limits` section: how long and how much the gateway and its tool sessions
// may take. Parsed apart from ./gateway-config.ts, which hands it the config error to throw.
import { s, type Infer, problem, section, type Fail } from "../../schema/index.ts";

/** Pooled connections per tool server (forward.ts's agent). */
export const UPSTREAM_SOCKETS = 256;

interface LimitOptions {
  /** Stored units per unit of the file (60_000: minutes in the file, milliseconds in the code). */
  readonly scale?: number;
  /** Counted in whole units: a fraction is rounded down. */
  readonly whole?: boolean;
  /** 0 allowed (it turns the thing off rather than meaning "never"). */
  readonly zero?: boolean;
  readonly max?: number;
}

/**
 * One limit: the name the code reads it by (`as`), its default in the file's unit, and its
 * bounds. The schema node, the stored value and GatewayLimits' field all come from this.
 */
function limit<const A extends string>(as: A, fallback: number, options: LimitOptions = {}) {
  const { scale = 1, whole = false, zero = false, max } = options;
  const bounds = { ...(zero ? { minimum: 0 } : { exclusiveMinimum: 0 }), ...(max === undefined ? {} : { maximum: max }) };
  const text = `${zero ? "must be a number, 0 or more" : "must be a positive number"}${max === undefined ? "" : `, at most ${max}`}`;
  const node = problem(s.number(bounds).default(fallback), text);
  return { as, node, stored: (x: number) => (whole ? Math.floor(x) : x) * scale };
}

/** gateway.json's `limits`: adding one is one line here (and one row in docs/gateway.md's table). */
const LIMITS = {
  idleMinutes: limit("idleTimeoutMs", 30, { scale: 60_000 }),
  startSeconds: limit("startTimeoutMs", 30, { scale: 1000 }),
  sessionsPerUser: limit("sessionsPerUser", 8, { whole: true }),
  sessionsTotal: limit("sessionsTotal", 200, { whole: true }),
  maxBodyBytes: limit("maxBodyBytes", 16 * 1024 * 1024, { whole: true }),
  ratePerSecond: limit("ratePerSecond", 50),
  rateBurst: limit("rateBurst", 200),
  // A revocation elsewhere must take effect within a minute whatever the config says.
  lookupCacheSeconds: limit("lookupCacheMs", 1, { scale: 1000, zero: true, max: 60 }),
  proxyCookieMinutes: limit("proxyCookieMs", 8 * 60, { scale: 60_000 }),
  headersSeconds: limit("headersTimeoutMs", 20, { scale: 1000 }),
  requestSeconds: limit("requestTimeoutMs", 120, { scale: 1000 }),
  keepAliveSeconds: limit("keepAliveTimeoutMs", 5, { scale: 1000 }),
  maxConnections: limit("maxConnections", 1000, { whole: true }),
  // One person must never hold every pooled connection to a tool server (see forward.ts).
  upstreamRequestsPerUser: limit("upstreamRequestsPerUser", 16, { whole: true, max: UPSTREAM_SOCKETS / 2 }),
  rewriteBudgetBytes: limit("rewriteBudgetBytes", 128 * 1024 * 1024, { whole: true }),
};
type Limits = typeof LIMITS;

/** The `limits` section as written in gateway.json. */
export const limitsSchema = problem(
  s.object(Object.fromEntries(Object.entries(LIMITS).map(([k, l]) => [k, l.node])) as { [K in keyof Limits]: Limits[K]["node"] }, {
    additionalProperties: false,
  }),
  "must be an object",
);
export type LimitsFile = Infer<typeof limitsSchema>;

/**
 * How long and how much, in the code's units (ms, counts, bytes), each field named by its
 * limit's `as` (docs/gateway.md, "Config reference", says what each bounds).
 */
export type GatewayLimits = { readonly [K in keyof Limits as Limits[K]["as"]]: number };

const LIMITS_SECTION = section(limitsSchema);

/** The file's values (all there: the defaults are filled in) in the code's units. */
function stored(file: Record<string, number>): GatewayLimits {
  const out: Record<string, number> = {};
  for (const [key, l] of Object.entries(LIMITS)) out[l.as] = l.stored(file[key]!);
  return out as GatewayLimits;
}

/** Parses the section; `fail(key, problem)` throws the caller's config error. */
export function parseLimits(v: unknown, fail: Fail): GatewayLimits {
  return stored(LIMITS_SECTION.check(v ?? {}, "limits", fail));
}

export const DEFAULT_LIMITS: GatewayLimits = stored(Object.fromEntries(Object.entries(LIMITS).map(([key, l]) => [key, l.node.toJSON().default as number])));
