// The route table's handlers that live in other folders, given the parts they need: health,
// readiness, metrics, the account and operator's pages (a step onto the OAuth server's path),
// console links, the session proxy, the registry's admin API and the connector.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { GatewayContext } from "../calls/tool-call.ts";
import type { AuditEntry } from "../audit/entry.ts";
import { CORS, GatewayError, sendJson } from "../contracts/respond.ts";
import type { GatewayRoutes } from "../edge/route-table.ts";
import { handleSessionProxy } from "../edge/session-proxy.ts";
import { ConsoleLinkUses, openConsoleLink } from "../edge/console-link.ts";
import { hostAllowList } from "../../http/host-guard.ts";
import type { ConnectorContext } from "../hub-connector/context.ts";
import { handleConnector } from "../hub-connector/endpoint.ts";
import { readiness } from "../operations/readiness.ts";
import { livePerTool } from "../operations/server-ops.ts";
import { handleAdminApi } from "../tool-registry/admin-api.ts";
import { listenHost } from "./options.ts";
import type { GatewayParts } from "./parts.ts";

/** What is made once the gateway listens, read by the handlers on each request. */
export interface Listening {
  current?: GatewayContext;
  connector?: ConnectorContext;
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

export function gatewayRoutes(p: GatewayParts, ctx: Listening): GatewayRoutes {
  const { sessions, metrics, audit, options } = p;
  const consoleUses = new ConsoleLinkUses(p.store);
  // DNS rebinding, on every bind: the gateway answers only to its public host, the hosts the
  // operator allows, and this machine's own names and addresses.
  let hostAllowed: ((header: string) => boolean) | undefined;
  return {
    config: p.config,
    verifiers: p.verifiers,
    publicUrl: () => p.publicUrl.value,
    hostServed: (header) => {
      hostAllowed ??= hostAllowList([...p.config.allowedHosts, new URL(p.publicUrl.value).hostname], listenHost(options));
      return header !== undefined && hostAllowed(header);
    },
    authorizationServer: options.authorizationServer,
    rateLimit: p.rateLimit,
    gateway: () => ctx.current!,
    health: (_req, res) => sendJson(res, 200, { status: "ok", toolSessions: sessions.liveOwned }),
    ready: async (_req, res) => {
      const ready = await readiness(p.timed, sessions);
      sendJson(res, ready.ready ? 200 : 503, { status: ready.ready ? "ready" : "unready", store: ready.store, toolSessions: ready.sessions });
    },
    metrics: (_req, res) => {
      const text = metrics.render(sessions.liveOwned, livePerTool(sessions));
      res.writeHead(200, { ...CORS, "content-type": "text/plain; version=0.0.4", "content-length": Buffer.byteLength(text) });
      res.end(text);
    },
    account: (req, res) => signedInPage(req, res, p.accountPath),
    admin: (req, res) => signedInPage(req, res, p.adminPath),
    consoleLink: async (req, res, r) => {
      const opened = await openConsoleLink(ctx.current!, consoleUses, req, res);
      r.facts.user = opened?.user;
      r.facts.tool = opened?.tool;
    },
    sessionProxy: async (req, res, r) => {
      r.facts.user = await handleSessionProxy(ctx.current!, r.params.instance!, req, res);
    },
    adminApi: async (req, res, r) => {
      const api = {
        config: p.live.fileConfig,
        store: options.store,
        verifiers: p.verifiers,
        publicUrl: p.publicUrl.value,
        audit: (entry: AuditEntry) => audit.record(entry),
      };
      r.facts.user = await handleAdminApi(api, req, res);
    },
    connector: (req, res, r) => handleConnector(ctx.connector!, r.principal!, req, res),
  };
}
