// The gateway's steps from its socket on (the table is ../server.ts's): the keys its sealed
// ids and cookies are made with, the identity checks, the listening server (the route table,
// ../edge/route-table.ts, given the handlers of ./routes.ts, behind the access log), then the
// context every tool route shares and the connector, which need the address it listens on.
// What follows `listen` returns no promise: no request is served before the context is there.
import type { Server } from "node:http";
import type { Agent } from "node:http";
import { CORS as PROFILES } from "../../http/cors.ts";
import { bindHttp, gracefulClose, urlHost } from "../../http/listen.ts";
import type { GatewayContext } from "../calls/tool-call.ts";
import { LegacyStreams } from "../calls/legacy-sse.ts";
import { gatewayRouter } from "../edge/route-table.ts";
import { identityWarnings } from "../hosting/run-as.ts";
import { type ConnectorContext, createConnector, toolsChanged } from "../hub-connector/context.ts";
import { AnswerBudget } from "../relay/answer-budget.ts";
import { KEEPALIVE_MS } from "../relay/forward.ts";
import { SessionSealer } from "../relay/session-seal.ts";
import { UpstreamSlots } from "../relay/upstream-slots.ts";
import { withAccessLog } from "./access-log.ts";
import { listenHost } from "./options.ts";
import type { GatewayParts } from "./parts.ts";
import { gatewayRoutes, type Listening } from "./routes.ts";

/** The keys of the sealed `/mcp` session ids and the session proxy's cookies, shared by replicas through the store. */
export async function sessionKeys({ store }: Pick<GatewayParts, "store">): Promise<{ seal: Buffer; cookie: Buffer }> {
  const [seal, cookie] = await Promise.all([store.secret("mcp-session-key"), store.secret("session-cookie-key")]);
  return { seal, cookie };
}

/** Who the tool sessions would run as, checked once: each doubt one `warning` event. */
export async function identityChecked({ config, event }: Pick<GatewayParts, "config" | "event">): Promise<true> {
  for (const warning of await identityWarnings(config)) event("warning", { message: warning });
  return true;
}

export interface Listener {
  readonly server: Server;
  readonly port: number;
  /** Where this process listens, with a trailing slash. */
  readonly url: string;
  /** Stops accepting, cuts every connection left, and resolves once the server stopped. */
  readonly close: () => Promise<void>;
}

/** The gateway on its socket; `{hub_url}` is the address it listens on when nothing else named one. */
export async function listen(p: GatewayParts & { readonly listening: Listening }): Promise<Listener> {
  const { event, options } = p;
  const { serve } = gatewayRouter(gatewayRoutes(p, p.listening), (err) =>
    event("internal error", { error: err instanceof Error ? err.message.slice(0, 200) : "unknown" }),
  );
  // Slowloris: headers, request bodies and idle keep-alive are bounded (relayed streams are
  // not: the bounds cover what clients send), and open connections are capped.
  const { server, port } = await bindHttp(withAccessLog(serve, p.metrics, options.log), {
    host: listenHost(options),
    port: options.port ?? 0,
    limits: p.config.limits,
    onError: (err) => event("socket error", { error: String(err) }),
    badRequestCors: PROFILES.gateway,
  });
  const url = `http://${urlHost(listenHost(options))}:${port}/`;
  if (!p.publicUrl.value) p.publicUrl.value = url.slice(0, -1);
  return { server, port, url, close: gracefulClose(server, { timeoutMs: 0 }) };
}

type ContextParts = GatewayParts & { readonly keys: { seal: Buffer; cookie: Buffer }; readonly agent: Agent; readonly listening: Listening };

/** What every tool route shares once the gateway listens; what one person, or all together, may hold is bounded here. */
export function gatewayContext({ config, keys, agent, listening, options, tracer, ...p }: ContextParts): GatewayContext {
  const budget = new AnswerBudget(config.limits.rewriteBudgetBytes);
  listening.current = {
    config,
    publicUrl: p.publicUrl.value,
    sessions: p.sessions,
    sealer: new SessionSealer(keys.seal),
    cookieKey: keys.cookie,
    accounts: p.accounts,
    metrics: p.metrics,
    audit: p.audit,
    keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
    slots: new UpstreamSlots(config.limits.upstreamRequestsPerUser),
    budget,
    legacy: new LegacyStreams(budget, tracer),
    agent,
    tracer,
  };
  return listening.current;
}

/** `{publicUrl}/mcp`'s context, over the tool routes'. */
export function connector({ context, verifiers, event, store, listening }: ContextParts & { readonly context: GatewayContext }): ConnectorContext {
  listening.connector = createConnector(context, verifiers, event, store);
  return listening.connector;
}

/** The tools served changed (a tool registered or removed): the connector's lists follow, retired revisions' sessions end. */
export function watchTools({ live, connector, sessions, event }: GatewayParts & { readonly connector: ConnectorContext }): true {
  live.listen((change) => {
    toolsChanged(connector, change.tools);
    // Sessions of revisions no longer served end now, rather than at the next sweep.
    const retired = change.now ? sessions.retire() : Promise.resolve();
    void retired.then(
      () => event("tools changed", { tools: change.tools.slice(0, 20), count: change.tools.length }),
      (err: unknown) => event("tool sessions not retired", { error: String(err).slice(0, 200) }),
    );
  });
  return true;
}
