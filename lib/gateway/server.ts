// The hub gateway as an HTTP server: its parts put together, the route table
// (./edge/route-table.ts) given the handlers that need them, one JSON access-log line per request;
// no request can crash the process.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { ACCOUNTS, StoreAccountDirectory } from "./identity/accounts.ts";
import { AnswerBudget } from "./relay/answer-budget.ts";
import { API_TOKENS, ApiTokens } from "./identity/api-tokens.ts";
import { LegacyStreams } from "./calls/legacy-sse.ts";
import type { GatewayConfig } from "./config/gateway-config.ts";
import type { AuthorizationServer, RecordStore, TokenVerifier } from "./contracts/interfaces.ts";
import { KEEPALIVE_MS, upstreamAgent } from "./relay/forward.ts";
import type { Backend, LaunchRequest } from "./backends/index.ts";
import { GatewayMetrics } from "./operations/metrics.ts";
import { AuditTrail } from "./audit/trail.ts";
import { toolSessionEvents } from "./audit/session-events.ts";
import { readiness } from "./operations/readiness.ts";
import { closeThen, livePerTool, teeEvents } from "./operations/server-ops.ts";
import { adminPageHandlers } from "./admin/handler.ts";
import { packageVersion } from "../util/cli-entry.ts";
import { TimedRecordStore } from "./store/timed-record-store.ts";
import { tracingConfig } from "../telemetry/config.ts";
import { Tracer } from "../telemetry/tracer.ts";
import { TokenBucketLimiter } from "./edge/rate-limit.ts";
import { identityWarnings } from "./hosting/run-as.ts";
import { CORS, GatewayError, sendJson } from "./contracts/respond.ts";
import { gatewayRouter } from "./edge/route-table.ts";
import type { AuditEntry } from "./audit/entry.ts";
import { SessionSealer } from "./relay/session-seal.ts";
import { CachingRecordStore } from "./store/caching-record-store.ts";
import { ToolSessions } from "./tool-sessions/tool-sessions.ts";
import { isSteadyRoute } from "./tool-sessions/records.ts";
import type { GatewayContext } from "./calls/tool-call.ts";
import { UpstreamSlots } from "./relay/upstream-slots.ts";
import { handleSessionProxy } from "./edge/session-proxy.ts";
import { ConsoleLinkUses, openConsoleLink } from "./edge/console-link.ts";
import { CORS as PROFILES } from "../http/cors.ts";
import { bindHttp, gracefulClose, urlHost } from "../http/listen.ts";
import { hostAllowList } from "../http/host-guard.ts";
import { createConnector, toolsChanged, type ConnectorContext } from "./hub-connector/context.ts";
import { accountPageHandlers } from "./account/page.ts";
import { handleConnector } from "./hub-connector/endpoint.ts";
import { handleAdminApi } from "./tool-registry/admin-api.ts";
import { LiveTools } from "./tool-registry/live.ts";

export interface GatewayOptions {
  config: GatewayConfig;
  /** Accounts, tokens, keys and the tool session registry; share it between replicas. */
  store: RecordStore;
  /** 127.0.0.1 by default. */
  host?: string;
  /** 0 (a free port) by default. */
  port?: number;
  /** Overrides the config's publicUrl; by default the config's, else the listening address. */
  publicUrl?: string;
  /** Bearer checks, first non-null answer wins; API tokens of `store` by default. */
  verifiers?: readonly TokenVerifier[];
  /** Served before the gateway's own routes; its verifier joins `verifiers`. */
  authorizationServer?: AuthorizationServer;
  /** Receives JSON lines: the access log and tool session events. Silent by default. */
  log?: (line: string) => void;
  /** Between keepalive comments on relayed event streams; 15 s. */
  keepaliveMs?: number;
  /** The environment tool session children start from; the gateway's own by default. */
  childEnv?: NodeJS.ProcessEnv;
  /** Where the OTEL_* settings (span export) are read; the gateway's own environment by default. */
  telemetryEnv?: NodeJS.ProcessEnv;
  /**
   * Count the per-person rate limit (and the OAuth server's, via its own option) in `store`,
   * so replicas sharing it share the limit: what this replica's own limit lets through is
   * written there, in batches per person (see store-limit.ts). For a database store.
   */
  sharedLimits?: boolean;
  /** How tool sessions start; for embedding and specs. */
  launch?: (req: LaunchRequest) => Promise<Backend>;
  /**
   * The tools served, gateway.json's and those registered in `store`, kept current; opened
   * here by default. Given when something else (the OAuth server) must see the same tools.
   */
  liveTools?: LiveTools;
  /**
   * The audit trail, when the caller shares it (the OAuth server's sign-ins go to it too);
   * by default one opened from the config's `audit` section and closed with the gateway.
   */
  audit?: AuditTrail;
}

export interface RunningGateway {
  /** Where this process listens, with a trailing slash. */
  readonly url: string;
  /** `{hub_url}`, no trailing slash. */
  readonly publicUrl: string;
  readonly port: number;
  readonly httpServer: Server;
  /** Stops listening and every tool session this process started. Safe twice. */
  close(): Promise<void>;
}

function logPath(url: string | undefined): string {
  const path = (url ?? "/").split("?")[0]!.slice(0, 300);
  // The session proxy path carries a credential in its third segment.
  return path.replace(/^\/weber\/([^/]+)\/[^/]+/, "/weber/$1/-");
}

/** What the request path reads on every request: who the bearer is, and where their tool session runs. */
function keepForLookups(collection: string, value: unknown): boolean {
  return collection === API_TOKENS || collection === ACCOUNTS || isSteadyRoute(collection, value);
}

/** What one person, or all of them together, can hold in the gateway at once. */
function trafficBounds(config: GatewayConfig): Pick<GatewayContext, "slots" | "budget"> {
  return { slots: new UpstreamSlots(config.limits.upstreamRequestsPerUser), budget: new AnswerBudget(config.limits.rewriteBudgetBytes) };
}

/**
 * `/account` and `/admin`: a 303 to the page on the OAuth pages' path, relative as the sign-in
 * pages' links are, so it works on whatever host and path prefix the browser used (`/admin/` too).
 */
function signedInPage(req: IncomingMessage, res: ServerResponse, path: string | undefined): void {
  if (!path) throw new GatewayError("not_found", "No such route");
  const up = (req.url ?? "").split("?")[0]!.endsWith("/") ? "../" : "";
  res.writeHead(303, { location: `${up}${path.slice(1)}`, "cache-control": "no-store", "content-length": 0 }).end();
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const log = options.log ?? (() => {});
  const event = (name: string, fields: Record<string, unknown>): void => log(JSON.stringify({ time: new Date().toISOString(), event: name, ...fields }));
  const live = options.liveTools ?? (await LiveTools.open({ store: options.store, config: options.config, event }));
  // Its `tools` are read through `live` on every use: registered tools come and go while serving.
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
  let publicUrl = options.publicUrl?.replace(/\/+$/, "") ?? config.publicUrl ?? "";
  const sessions = new ToolSessions({
    store,
    readFresh: (collection, id) => store.fresh(collection, id),
    copyOf: (collection, id) => store.copyOf(collection, id),
    config,
    publicUrl: () => publicUrl,
    launch: options.launch,
    childEnv: options.childEnv,
    onEvent: teeEvents(event, toolSessionEvents(metrics, audit)),
  });
  // The account page, where the authorization server signs people in: served on its path.
  const accountPath = options.authorizationServer?.account?.serve(
    accountPageHandlers({
      host: options.authorizationServer.account,
      tokens: new ApiTokens(store, accounts),
      sessions,
      publicUrl: () => publicUrl,
      audit: (entry) => audit.record(entry),
    }),
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
  const [sealKey, cookieKey] = await Promise.all([store.secret("mcp-session-key"), store.secret("session-cookie-key")]);
  for (const warning of await identityWarnings(config)) event("warning", { message: warning });
  const ctx: { current?: GatewayContext; connector?: ConnectorContext } = {};
  const consoleUses = new ConsoleLinkUses(store);
  const host = options.host ?? "127.0.0.1";
  // DNS rebinding, on every bind: the gateway answers only to its public host, the hosts the
  // operator allows, and this machine's own names and addresses.
  let hostAllowed: ((header: string) => boolean) | undefined;
  const hostServed = (header: string | undefined): boolean => {
    hostAllowed ??= hostAllowList([...config.allowedHosts, new URL(publicUrl).hostname], host);
    return header !== undefined && hostAllowed(header);
  };

  const { serve } = gatewayRouter(
    {
      config,
      verifiers,
      publicUrl: () => publicUrl,
      hostServed,
      authorizationServer: options.authorizationServer,
      rateLimit: (user) => limiter.hit(user),
      gateway: () => ctx.current!,
      health: (_req, res) => sendJson(res, 200, { status: "ok", toolSessions: sessions.liveOwned }),
      ready: async (_req, res) => {
        const ready = await readiness(timed, sessions);
        sendJson(res, ready.ready ? 200 : 503, { status: ready.ready ? "ready" : "unready", store: ready.store, toolSessions: ready.sessions });
      },
      metrics: (_req, res) => {
        const text = metrics.render(sessions.liveOwned, livePerTool(sessions));
        res.writeHead(200, { ...CORS, "content-type": "text/plain; version=0.0.4", "content-length": Buffer.byteLength(text) });
        res.end(text);
      },
      account: (req, res) => signedInPage(req, res, accountPath),
      admin: (req, res) => signedInPage(req, res, adminPath),
      consoleLink: async (req, res, r) => {
        const opened = await openConsoleLink(ctx.current!, consoleUses, req, res);
        r.facts.user = opened?.user;
        r.facts.tool = opened?.tool;
      },
      sessionProxy: async (req, res, r) => {
        r.facts.user = await handleSessionProxy(ctx.current!, r.params.instance!, req, res);
      },
      adminApi: async (req, res, r) => {
        const api = { config: live.fileConfig, store: options.store, verifiers, publicUrl, audit: (entry: AuditEntry) => audit.record(entry) };
        r.facts.user = await handleAdminApi(api, req, res);
      },
      connector: (req, res, r) => handleConnector(ctx.connector!, r.principal!, req, res),
    },
    (err) => event("internal error", { error: err instanceof Error ? err.message.slice(0, 200) : "unknown" }),
  );

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = options.log ? performance.now() : 0;
    const facts: { user?: string; tool?: string } = {};
    // `on`: an answer closes once, and once() would wrap the listener on every request.
    res.on("close", () => {
      const status = res.headersSent ? res.statusCode : 499;
      metrics.request(facts.tool ?? "-", status);
      if (!options.log) return;
      log(
        JSON.stringify({
          time: new Date().toISOString(),
          method: req.method,
          path: logPath(req.url),
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          user: facts.user ?? null,
          tool: facts.tool ?? null,
        }),
      );
    });
    serve(req, res, facts);
  };

  // Slowloris: headers, request bodies and idle keep-alive are bounded (relayed streams are
  // not: the bounds cover what clients send), and open connections are capped.
  const { server, port } = await bindHttp(handler, {
    host,
    port: options.port ?? 0,
    limits: config.limits,
    onError: (err) => event("socket error", { error: String(err) }),
    badRequestCors: PROFILES.gateway,
  });
  const url = `http://${urlHost(host)}:${port}/`;
  if (!publicUrl) publicUrl = url.slice(0, -1);
  const bounds = trafficBounds(config);
  // This gateway's own: two gateways in one process share no sockets, and close leaves none open.
  const agent = upstreamAgent();
  ctx.current = {
    config,
    publicUrl,
    sessions,
    sealer: new SessionSealer(sealKey),
    cookieKey,
    accounts,
    metrics,
    audit,
    keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
    ...bounds,
    legacy: new LegacyStreams(bounds.budget, tracer),
    agent,
    tracer,
  };
  ctx.connector = createConnector(ctx.current, verifiers, event, store);
  live.listen((change) => {
    toolsChanged(ctx.connector!, change.tools);
    // Sessions of revisions no longer served end now, rather than at the next sweep.
    const retired = change.now ? sessions.retire() : Promise.resolve();
    void retired.then(
      () => event("tools changed", { tools: change.tools.slice(0, 20), count: change.tools.length }),
      (err: unknown) => event("tool sessions not retired", { error: String(err).slice(0, 200) }),
    );
  });

  return {
    url,
    publicUrl,
    port,
    httpServer: server,
    // Tool sessions stop first; what they leave running is then cut, and the agent's sockets with
    // it. Then what is still queued goes out: the spans (bounded by the collector's request time
    // limit) and the trail's last lines (the sessions just stopped), before close resolves.
    close: closeThen(
      gracefulClose(server, {
        begin: () => {
          live.close();
          ctx.connector!.table.close();
          return sessions.close();
        },
        timeoutMs: 0,
        end: () => agent.destroy(),
      }),
      () =>
        Promise.all([tracer.exporter?.flush(), options.audit ? options.audit.flush() : audit.close(), options.authorizationServer?.settled?.()]).then(
          () => undefined,
        ),
    ),
  };
}
