// The gateway's parts, built from its options before it listens, as a table in dependency
// order (./assemble.ts): the tools served, tracing, the audit trail and metrics, the store as
// the request path reads it, who may call, the rate limit, the tool sessions, and the account
// and operator's pages on the OAuth server's sign-in. Each part's builder is below the table.
import { ACCOUNTS, StoreAccountDirectory } from "../identity/accounts.ts";
import { API_TOKENS, ApiTokens } from "../identity/api-tokens.ts";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { AuthorizationServer, TokenVerifier } from "../contracts/interfaces.ts";
import { GatewayMetrics } from "../operations/metrics.ts";
import { AuditTrail } from "../audit/trail.ts";
import { toolSessionEvents } from "../audit/session-events.ts";
import { teeEvents } from "../operations/server-ops.ts";
import { adminPageHandlers } from "../admin/handler.ts";
import { packageVersion } from "../../util/cli-entry.ts";
import { TimedRecordStore } from "../store/timed-record-store.ts";
import { tracingConfig } from "../../telemetry/config.ts";
import { Tracer } from "../../telemetry/tracer.ts";
import { TokenBucketLimiter } from "../edge/rate-limit.ts";
import { CachingRecordStore } from "../store/caching-record-store.ts";
import { ToolSessions } from "../tool-sessions/tool-sessions.ts";
import { isSteadyRoute } from "../tool-sessions/records.ts";
import { accountPageHandlers } from "../account/page.ts";
import { LiveTools } from "../tool-registry/live.ts";
import { Assembly, type PartsOf } from "./assemble.ts";
import type { GatewayOptions } from "./options.ts";

export type EventLog = (name: string, fields: Record<string, unknown>) => void;

/** `{hub_url}` as known so far: the listening address fills it in when neither the options nor the config give one. */
export interface PublicUrl {
  value: string;
}

/**
 * The parts, each from those above it; a part with a closer is closed after everything below
 * it: the OAuth server's background writes are awaited last, after the spans and the trail's
 * last lines, which come after the tool sessions stopped. `config`'s tools are read through
 * `live` on every use (registered tools come and go while serving); `timed` is the store past
 * every cache (readiness, the operator's page), `store` the request path's, lookups cached.
 */
export const PARTS = new Assembly<{ readonly options: GatewayOptions }>()
  .add("authorizationServer", authorizationServer, (server) => server?.settled?.())
  .add("event", ({ options }) => eventLog(options.log))
  .add("live", ({ options, event }) => options.liveTools ?? LiveTools.open({ store: options.store, config: options.config, event }))
  .add("config", ({ live }): GatewayConfig => live.config)
  .add("tracer", tracer, (spans) => spans.exporter?.flush())
  .add("audit", auditTrail, (audit, { options }) => (options.audit ? audit.flush() : audit.close()))
  .add("metrics", gatewayMetrics)
  .add("timed", ({ options, metrics }) => new TimedRecordStore(options.store, (op, ms, failed) => metrics.store(op, ms, failed)))
  .add("store", ({ timed, config }) => new CachingRecordStore(timed, { ttlMs: config.limits.lookupCacheMs, keep: keepForLookups }))
  .add("accounts", ({ store }) => new StoreAccountDirectory(store))
  .add("verifiers", verifiers)
  .add("rateLimit", rateLimit)
  .add("publicUrl", ({ options, config }): PublicUrl => ({ value: options.publicUrl?.replace(/\/+$/, "") ?? config.publicUrl ?? "" }))
  .add("sessions", toolSessions, (sessions) => sessions.close())
  .add("accountPath", accountPage)
  .add("adminPath", adminPage);

export type GatewayParts = PartsOf<typeof PARTS>;

/** The parts as the builders below read them: typed here, since a type inferred from PARTS cannot type its own builders. */
interface Given {
  readonly options: GatewayOptions;
  readonly config: GatewayConfig;
  readonly event: EventLog;
  readonly metrics: GatewayMetrics;
  readonly audit: AuditTrail;
  readonly tracer: Tracer;
  readonly timed: TimedRecordStore;
  readonly store: CachingRecordStore;
  readonly accounts: StoreAccountDirectory;
  readonly publicUrl: PublicUrl;
  readonly sessions: ToolSessions;
}

function authorizationServer({ options }: Pick<Given, "options">): AuthorizationServer | undefined {
  return options.authorizationServer;
}

function tracer({ options }: Pick<Given, "options">): Tracer {
  return new Tracer(tracingConfig(options.telemetryEnv ?? process.env, "hub_gateway"));
}

function eventLog(log: ((line: string) => void) | undefined): EventLog {
  const write = log ?? (() => {});
  return (name, fields) => write(JSON.stringify({ time: new Date().toISOString(), event: name, ...fields }));
}

function auditTrail({ options, config, event }: Pick<Given, "options" | "config" | "event">): AuditTrail {
  return options.audit ?? new AuditTrail(config.audit, { onError: (code) => event("audit trail failed", { code }) });
}

function gatewayMetrics({ tracer, audit }: Pick<Given, "tracer" | "audit">): GatewayMetrics {
  return new GatewayMetrics({ droppedSpans: () => tracer.exporter?.dropped ?? 0, droppedAuditLines: () => audit.dropped });
}

/** What the request path reads on every request: who the bearer is, and where their tool session runs. */
function keepForLookups(collection: string, value: unknown): boolean {
  return collection === API_TOKENS || collection === ACCOUNTS || isSteadyRoute(collection, value);
}

/** Bearer checks, first non-null answer wins: the options' (API tokens by default), then the OAuth server's. */
function verifiers({ options, store, accounts }: Pick<Given, "options" | "store" | "accounts">): TokenVerifier[] {
  const given = options.verifiers ?? [new ApiTokens(store, accounts, (collection, id) => store.copyOf(collection, id))];
  return options.authorizationServer ? [...given, options.authorizationServer.verifier] : [...given];
}

function rateLimit({ options, config }: Pick<Given, "options" | "config">): (user: string) => number | Promise<number> {
  const local = new TokenBucketLimiter(config.limits.ratePerSecond, config.limits.rateBurst);
  const limiter = options.sharedLimits ? local.sharedIn(options.store) : { hit: (user: string) => local.take(user) };
  return (user) => limiter.hit(user);
}

function toolSessions({ options, store, config, publicUrl, event, metrics, audit }: Omit<Given, "sessions">): ToolSessions {
  return new ToolSessions({
    store,
    readFresh: (collection, id) => store.fresh(collection, id),
    copyOf: (collection, id) => store.copyOf(collection, id),
    config,
    publicUrl: () => publicUrl.value,
    launch: options.launch,
    childEnv: options.childEnv,
    onEvent: teeEvents(event, toolSessionEvents(metrics, audit)),
  });
}

/** The account page, where the authorization server signs people in: served on its path. */
function accountPage({ options, store, accounts, sessions, publicUrl, audit }: Given): string | undefined {
  const account = options.authorizationServer?.account;
  const tokens = new ApiTokens(store, accounts);
  return account?.serve(accountPageHandlers({ host: account, tokens, sessions, publicUrl: () => publicUrl.value, audit: (entry) => audit.record(entry) }));
}

/** The operator's page on the same sign-in; past the lookup cache, so someone taken out of the admin group loses it at once. */
function adminPage({ options, config, sessions, timed, audit, tracer }: Given): string | undefined {
  const admin = options.authorizationServer?.admin;
  return admin?.serve(
    adminPageHandlers({
      config,
      host: admin,
      sessions,
      store: timed,
      accounts: new StoreAccountDirectory(timed),
      audit,
      droppedSpans: () => tracer.exporter?.dropped ?? 0,
      version: packageVersion(),
    }),
  );
}
