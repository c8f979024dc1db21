// The gateway's routes as one table on the router (../../http/router.ts), and the steps they are
// made of: host guard, the authorization server's own paths, the tool a path names, the bearer
// for a resource (a tool's or the hub's), the per-person rate limit, then the handler. The
// router decides 404, 405 with Allow, HEAD and OPTIONS (the gateway's CORS preflight).
import type { IncomingMessage, ServerResponse } from "node:http";
import { CORS as PROFILES } from "../../http/cors.ts";
import { type Match, NEXT, type Params, type RouteEntry, Router, type Step } from "../../http/router.ts";
import { authorize, bearer, resourceMetadata } from "../identity/auth.ts";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { AuthorizationServer, Principal, TokenVerifier } from "../contracts/interfaces.ts";
import { authorizeHub, hubResourceMetadata } from "../hub-connector/auth.ts";
import { GatewayError, knownFailure, sendError, sendJson } from "../contracts/respond.ts";
import { checkedPath, queryOf, type ToolEndpoint } from "../contracts/routes.ts";
import type { Caller, GatewayContext } from "../calls/tool-call.ts";
import { restCall, sessionRpc, toolRoutes } from "./tool-routes.ts";
import { sendLanding } from "./landing.ts";
import { rateLimited } from "../operations/server-ops.ts";

/** One request on its way through the gateway's steps: what they learnt, for the next ones and the access log. */
export interface GatewayRequest {
  params: Params;
  readonly facts: { user?: string; tool?: string };
  /** The request path broke the path rules (../contracts/routes.ts): answered 400, not 404. */
  badPath?: boolean;
  principal?: Principal;
  caller?: Caller;
}

type Handler = (req: IncomingMessage, res: ServerResponse, r: GatewayRequest) => Promise<unknown> | unknown;

/** What the table's steps and handlers use; the handlers that live elsewhere come in whole. */
export interface GatewayRoutes {
  readonly config: GatewayConfig;
  readonly verifiers: readonly TokenVerifier[];
  publicUrl(): string;
  hostServed(header: string | undefined): boolean;
  readonly authorizationServer?: AuthorizationServer;
  /** Seconds to wait before the person may ask again, 0 to go on. */
  rateLimit(user: string): number | Promise<number>;
  /** The GatewayContext, ready once the gateway listens. */
  gateway(): GatewayContext;
  health: Handler;
  ready: Handler;
  metrics: Handler;
  account: Handler;
  consoleLink: Handler;
  sessionProxy: Handler;
  admin: Handler;
  adminApi: Handler;
  connector: Handler;
}

/** A maybe-promise's value handed on, with no promise made when it has none. */
function then<T>(value: T | Promise<T>, next: (v: T) => unknown): unknown {
  return value instanceof Promise ? value.then(next) : next(value);
}

function steps(g: GatewayRoutes) {
  // DNS rebinding, on every request: only the public host, the allowed ones and this machine's names.
  const hostGuard: Step<GatewayRequest> = (req) => {
    if (!g.hostServed(req.headers.host)) throw new GatewayError("host_not_allowed", "This Host is not served here");
    return NEXT;
  };
  // Its own paths, before the gateway's: it answers false at once for any other.
  const as = g.authorizationServer;
  const authorizationServer: Step<GatewayRequest> = (req, res) =>
    as ? then(as.handleNow ? as.handleNow(req, res) : as.handle(req, res), (handled) => (handled ? undefined : NEXT)) : NEXT;
  const knownTool: Step<GatewayRequest> = (_req, _res, r) => {
    const tool = r.params.tool!;
    if (!Object.hasOwn(g.config.tools, tool)) throw new GatewayError("unknown_tool", "No such tool on this gateway");
    r.facts.tool = tool;
    return NEXT;
  };
  const toolBearer =
    (endpoint: ToolEndpoint): Step<GatewayRequest> =>
    (req, _res, r) => {
      const tool = r.params.tool!;
      const spec = g.config.tools[tool]!;
      return then(authorize(req, g.verifiers, g.publicUrl(), tool, spec, endpoint), (principal) => {
        r.facts.user = principal.user;
        r.caller = { principal, tool, spec, query: queryOf(req.url) };
        return NEXT;
      });
    };
  const hubBearer: Step<GatewayRequest> = (req, _res, r) =>
    then(authorizeHub(req, g.verifiers, g.publicUrl()), (principal) => {
      r.facts.user = principal.user;
      r.principal = principal;
      return NEXT;
    });
  // Counted in memory, the limit answers at once: no promise to wait for on every request.
  const rateLimit: Step<GatewayRequest> = (_req, _res, r) =>
    then(g.rateLimit(r.facts.user!), (wait) => {
      if (wait > 0) throw rateLimited(g.gateway().metrics, wait);
      return NEXT;
    });
  return { hostGuard, authorizationServer, knownTool, toolBearer, hubBearer, rateLimit };
}

function table(g: GatewayRoutes, s: ReturnType<typeof steps>): RouteEntry<GatewayRequest>[] {
  const tool =
    (handler: (ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse) => Promise<void>): Step<GatewayRequest> =>
    (req, res, r) =>
      handler(g.gateway(), r.caller!, req, res);
  const mcp = [s.knownTool, s.toolBearer("mcp"), s.rateLimit];
  const sse = [s.knownTool, s.toolBearer("sse"), s.rateLimit];
  const hubMetadata: Handler = (_req, res) => sendJson(res, 200, hubResourceMetadata(g.publicUrl()));
  const metadata =
    (endpoint: ToolEndpoint): Step<GatewayRequest> =>
    (_req, res, r) =>
      sendJson(res, 200, resourceMetadata(g.publicUrl(), r.params.tool!, endpoint));
  // A credential, when there is one, must be good for the hub (its 401 otherwise); none is the public page.
  const landing: Handler = (req, res, r) =>
    then(bearer(req) === null ? null : authorizeHub(req, g.verifiers, g.publicUrl()), (principal) => {
      if (principal) r.facts.user = principal.user;
      sendLanding(req, res, g.publicUrl(), g.config, principal);
    });
  return [
    { path: "/", methods: { GET: landing } },
    { path: "/healthz", methods: { GET: g.health } },
    { path: "/readyz", methods: { GET: g.ready } },
    { path: "/metrics", methods: { GET: g.metrics } },
    // The hub connector: one endpoint for every tool (./hub-connector/).
    { path: "/mcp", before: [s.hubBearer, s.rateLimit], methods: { GET: g.connector, POST: g.connector, DELETE: g.connector }, head: false },
    { path: "/.well-known/oauth-protected-resource/mcp", methods: { GET: hubMetadata } },
    { path: "/mcp/.well-known/oauth-protected-resource", methods: { GET: hubMetadata } },
    // A browser's link: its refusals, a wrong method's too, are pages, so it answers every method itself.
    { path: "/console", methods: { ANY: g.consoleLink } },
    { path: "/account", methods: { GET: g.account } },
    // The tool registry's API reads the rest of the path itself, and answers its own preflights (none).
    { path: "/admin/api", methods: { ANY: g.adminApi }, cors: null },
    { path: "/admin/api/*", methods: { ANY: g.adminApi }, cors: null },
    // The operator's page lives with the OAuth pages; below /admin is nothing but its API.
    { path: "/admin", methods: { GET: g.admin } },
    { path: "/weber/:instance/:cookie/*", methods: { ANY: g.sessionProxy } },
    // Per tool: each an OAuth protected resource of its own name; RFC 9728's location and the one beside it.
    ...(["mcp", "sse"] as const).flatMap((endpoint): RouteEntry<GatewayRequest>[] => [
      { path: `/.well-known/oauth-protected-resource/api/mcp/:tool/${endpoint}`, before: [s.knownTool], methods: { GET: metadata(endpoint) } },
      { path: `/api/mcp/:tool/${endpoint}/.well-known/oauth-protected-resource`, before: [s.knownTool], methods: { GET: metadata(endpoint) } },
    ]),
    // HEAD is none of theirs: each GET mints or holds a session.
    { path: "/api/mcp/:tool", before: mcp, methods: { GET: tool(toolRoutes.bootstrap), POST: tool(toolRoutes.rootRpc) }, head: false },
    {
      path: "/api/mcp/:tool/mcp",
      before: mcp,
      methods: { GET: tool(toolRoutes.streamGet), POST: tool(toolRoutes.rpc), DELETE: tool(toolRoutes.deleteSession) },
      head: false,
    },
    { path: "/api/mcp/:tool/sse", before: sse, methods: { GET: tool(toolRoutes.legacyGet), POST: tool(toolRoutes.postLegacy) }, head: false },
    { path: "/api/mcp/:tool/openapi.json", before: mcp, methods: { GET: tool(toolRoutes.openapi) }, head: false },
    { path: "/api/mcp/:tool/tools/:name", before: mcp, methods: { POST: (req, res, r) => restCall(g.gateway(), r.caller!, r.params.name!, req, res) } },
    { path: "/api/mcp/:tool/:session", before: mcp, methods: { POST: (req, res, r) => sessionRpc(g.gateway(), r.caller!, r.params.session!, req, res) } },
  ];
}

/** Request targets seen lately and their routes: clients send the same few again and again, and checking one reads every segment. */
const ROUTES_KEPT = 1000;

/** A request target's route: the table's pattern and its params; null for a hostile path, undefined for none. */
export type GatewayMatch = Match<GatewayRequest> | null | undefined;

/** The gateway's router: the one call that serves a request on it, and its matcher (for specs). */
export function gatewayRouter(
  g: GatewayRoutes,
  onInternalError: (err: unknown) => void,
): { serve: (req: IncomingMessage, res: ServerResponse, facts: GatewayRequest["facts"]) => void; match: (target: string) => GatewayMatch } {
  const s = steps(g);
  const router = new Router<GatewayRequest>(table(g, s), {
    before: [s.hostGuard, s.authorizationServer],
    cors: PROFILES.gateway,
    notFound: (_req, res, r) =>
      sendError(res, r.badPath ? new GatewayError("bad_path", "The request path is not acceptable") : new GatewayError("not_found", "No such route")),
    methodNotAllowed: (_req, res, _r, allow) => sendError(res, new GatewayError("method_not_allowed", `Use ${allow}`, { allow })),
    failed: (err, _req, res) => {
      const known = knownFailure(err);
      if (known) return sendError(res, known);
      onInternalError(err);
      sendError(res, new GatewayError("internal_error", "The gateway failed to handle this request"));
    },
  });
  const seen = new Map<string, GatewayMatch>();
  const match = (target: string): GatewayMatch => {
    const path = checkedPath(target);
    if (path === null) return null;
    // One trailing slash names the same resource: `/api/mcp/demo/` is `/api/mcp/demo`.
    return router.match(path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);
  };
  const serve = (req: IncomingMessage, res: ServerResponse, facts: GatewayRequest["facts"]): void => {
    const target = req.url ?? "/";
    let found = seen.get(target);
    if (found === undefined) {
      found = match(target);
      if (target.length <= 512) {
        if (seen.size >= ROUTES_KEPT) seen.clear();
        seen.set(target, found);
      }
    }
    void router.serve(found ?? undefined, req, res, { params: {}, facts, badPath: found === null });
  };
  return { serve, match };
}
