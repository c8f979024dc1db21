// The gateway's parts, built from its options before it listens: the tools served, tracing,
// the audit trail and metrics, the store as the request path reads it, who may call, the rate
// limit, the tool sessions, and the account and operator's pages on the OAuth server's sign-in.
import { ACCOUNTS, StoreAccountDirectory } from "../identity/accounts.ts";
import { API_TOKENS, ApiTokens } from "../identity/api-tokens.ts";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { TokenVerifier } from "../contracts/interfaces.ts";
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
import type { GatewayOptions } from "./options.ts";

export type EventLog = (name: string, fields: Record<string, unknown>) => void;

export interface GatewayParts {
  readonly event: EventLog;
  readonly live: LiveTools;
  /** Its `tools` are read through `live` on every use: registered tools come and go while serving. */
  readonly config: GatewayConfig;
  readonly tracer: Tracer;
  readonly audit: AuditTrail;
  readonly metrics: GatewayMetrics;
  /** The store as given, timed for /metrics; past every cache (readiness, the operator's page). */
  readonly timed: TimedRecordStore;
  /** The same with the request path's lookups cached. */
  readonly store: CachingRecordStore;
  readonly accounts: StoreAccountDirectory;
  readonly verifiers: TokenVerifier[];
  readonly rateLimit: (user: string) => number | Promise<number>;
  readonly sessions: ToolSessions;
  /** Where the OAuth server serves the account page and the operator's page, when it does. */
  readonly accountPath: string | undefined;
  readonly adminPath: string | undefined;
  /** `{hub_url}` as known so far: the listening address fills it in when neither the options nor the config give one. */
  publicUrl: string;
}

/** What the request path reads on every request: who the bearer is, and where their tool session runs. */
function keepForLookups(collection: string, value: unknown): boolean {
  return collection === API_TOKENS || collection === ACCOUNTS || isSteadyRoute(collection, value);
}

export async function buildParts(options: GatewayOptions): Promise<GatewayParts> {
  const log = options.log ?? (() => {});
  const event: EventLog = (name, fields) => log(JSON.stringify({ time: new Date().toISOString(), event: name, ...fields }));
  const live = options.liveTools ?? (await LiveTools.open({ store: options.store, config: options.config, event }));
  const { config } = live;
  const tracer = new Tracer(tracingConfig(options.telemetryEnv ?? process.env, "hub_gateway"));
  const audit = options.audit ?? new AuditTrail(config.audit, { onError: (code) => event("audit trail failed", { code }) });
  const metrics = new GatewayMetrics({ droppedSpans: () => tracer.exporter?.dropped ?? 0, droppedAuditLines: () => audit.dropped });
  const timed = new TimedRecordStore(options.store, (op, ms, failed) => metrics.store(op, ms, failed));
  const store = new CachingRecordStore(timed, { ttlMs: config.limits.lookupCacheMs, keep: keepForLookups });
  const accounts = new StoreAccountDirectory(store);
  const verifiers = [...(options.verifiers ?? [new ApiTokens(store, accounts, (collection, id) => store.copyOf(collection, id))])];
  if (options.authorizationServer) verifiers.push(options.authorizationServer.verifier);
  const local = new TokenBucketLimiter(config.limits.ratePerSecond, config.limits.rateBurst);
  const limiter = options.sharedLimits ? local.sharedIn(options.store) : { hit: (user: string) => local.take(user) };
  const parts: Omit<GatewayParts, "sessions" | "accountPath" | "adminPath"> & Partial<GatewayParts> = {
    event,
    live,
    config,
    tracer,
    audit,
    metrics,
    timed,
    store,
    accounts,
    verifiers,
    rateLimit: (user) => limiter.hit(user),
    publicUrl: options.publicUrl?.replace(/\/+$/, "") ?? config.publicUrl ?? "",
  };
  const publicUrl = (): string => parts.publicUrl;
  const sessions = new ToolSessions({
    store,
    readFresh: (collection, id) => store.fresh(collection, id),
    copyOf: (collection, id) => store.copyOf(collection, id),
    config,
    publicUrl,
    launch: options.launch,
    childEnv: options.childEnv,
    onEvent: teeEvents(event, toolSessionEvents(metrics, audit)),
  });
  // The account page, where the authorization server signs people in: served on its path.
  const account = options.authorizationServer?.account;
  const accountPath = account?.serve(
    accountPageHandlers({ host: account, tokens: new ApiTokens(store, accounts), sessions, publicUrl, audit: (entry) => audit.record(entry) }),
  );
  // The operator's page on the same sign-in; past the lookup cache, so someone taken out of the admin group loses it at once.
  const admin = options.authorizationServer?.admin;
  const adminPath = admin?.serve(
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
  return Object.assign(parts, { sessions, accountPath, adminPath });
}
