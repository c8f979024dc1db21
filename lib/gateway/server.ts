// The hub gateway as an HTTP server: its parts (./assembly/parts.ts), the route table
// (./edge/route-table.ts) given the handlers that need them (./assembly/routes.ts), one
// access-log line per request (./assembly/access-log.ts), and the context every tool route
// shares once the gateway listens. No request can crash the process.
import type { GatewayConfig } from "./config/gateway-config.ts";
import { AnswerBudget } from "./relay/answer-budget.ts";
import { LegacyStreams } from "./calls/legacy-sse.ts";
import { KEEPALIVE_MS, upstreamAgent } from "./relay/forward.ts";
import { closeThen } from "./operations/server-ops.ts";
import { identityWarnings } from "./hosting/run-as.ts";
import { gatewayRouter } from "./edge/route-table.ts";
import { SessionSealer } from "./relay/session-seal.ts";
import type { GatewayContext } from "./calls/tool-call.ts";
import { UpstreamSlots } from "./relay/upstream-slots.ts";
import { CORS as PROFILES } from "../http/cors.ts";
import { bindHttp, gracefulClose, urlHost } from "../http/listen.ts";
import { createConnector, toolsChanged } from "./hub-connector/context.ts";
import { withAccessLog } from "./assembly/access-log.ts";
import type { GatewayOptions, RunningGateway } from "./assembly/options.ts";
import { buildParts } from "./assembly/parts.ts";
import { gatewayRoutes, type Listening } from "./assembly/routes.ts";

export type { GatewayOptions, RunningGateway } from "./assembly/options.ts";

/** What one person, or all of them together, can hold in the gateway at once. */
function trafficBounds(config: GatewayConfig): Pick<GatewayContext, "slots" | "budget"> {
  return { slots: new UpstreamSlots(config.limits.upstreamRequestsPerUser), budget: new AnswerBudget(config.limits.rewriteBudgetBytes) };
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const p = await buildParts(options);
  const { config, event, sessions, live, tracer } = p;
  const [sealKey, cookieKey] = await Promise.all([p.store.secret("mcp-session-key"), p.store.secret("session-cookie-key")]);
  for (const warning of await identityWarnings(config)) event("warning", { message: warning });
  const host = options.host ?? "127.0.0.1";
  const ctx: Listening = {};
  const { serve } = gatewayRouter(gatewayRoutes(p, options, host, ctx), (err) =>
    event("internal error", { error: err instanceof Error ? err.message.slice(0, 200) : "unknown" }),
  );
  // Slowloris: headers, request bodies and idle keep-alive are bounded (relayed streams are
  // not: the bounds cover what clients send), and open connections are capped.
  const { server, port } = await bindHttp(withAccessLog(serve, p.metrics, options.log), {
    host,
    port: options.port ?? 0,
    limits: config.limits,
    onError: (err) => event("socket error", { error: String(err) }),
    badRequestCors: PROFILES.gateway,
  });
  const url = `http://${urlHost(host)}:${port}/`;
  if (!p.publicUrl) p.publicUrl = url.slice(0, -1);
  const bounds = trafficBounds(config);
  // This gateway's own: two gateways in one process share no sockets, and close leaves none open.
  const agent = upstreamAgent();
  ctx.current = {
    config,
    publicUrl: p.publicUrl,
    sessions,
    sealer: new SessionSealer(sealKey),
    cookieKey,
    accounts: p.accounts,
    metrics: p.metrics,
    audit: p.audit,
    keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
    ...bounds,
    legacy: new LegacyStreams(bounds.budget, tracer),
    agent,
    tracer,
  };
  ctx.connector = createConnector(ctx.current, p.verifiers, event, p.store);
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
    publicUrl: p.publicUrl,
    port,
    httpServer: server,
    // Tool sessions stop first; what they leave running is then cut, and the agent's sockets with
    // it. Then what is still queued goes out: the spans (bounded by the collector's request time
    // limit), the trail's last lines (the sessions just stopped) and the OAuth server's
    // background writes, before close resolves.
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
        Promise.all([tracer.exporter?.flush(), options.audit ? options.audit.flush() : p.audit.close(), options.authorizationServer?.settled?.()]).then(
          () => undefined,
        ),
    ),
  };
}
