// The authorization server as one request handler on the gateway's origin: it answers its
// own paths and leaves every other request to the gateway untouched.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthorizationServer, TokenVerifier } from "../contracts/interfaces.ts";
import { OAuthAccountHost, pageHostParts, SignedInPageHost } from "./account-host.ts";
import { AuthorizeEndpoints } from "./authorize.ts";
import { BrowserSessions } from "./browser-session.ts";
import { ClientDirectory } from "./clients.ts";
import { Grants } from "./grants.ts";
import { BodyError } from "../../http/body.ts";
import { CORS, setCors } from "../../http/cors.ts";
import { NEXT, type Params, Router, type Step } from "../../http/router.ts";
import { wireCodeOf } from "../../http/status.ts";
import { WIRE_OF } from "../../util/errors.ts";
import { readBody, sendJson, sendOAuthFailure } from "./http-io.ts";
import { AS_PATHS, authorizationServerMetadata } from "./metadata.ts";
import { resolveOptions, type OAuthConfig, type OAuthServerOptions } from "./options.ts";
import { LIMITS, oauthLimit, FixedWindowLimiter } from "./rate-limit.ts";
import { registerClient } from "./registration.ts";
import { revocationEndpoint, tokenEndpoint } from "./token-endpoint.ts";
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from "../contracts/store-errors.ts";
import { Sweeper } from "./sweeper.ts";
import { OAuthTokenVerifier } from "./verifier.ts";
import { UpstreamSignIn } from "./upstream-sign-in.ts";
import { AssertionGrants } from "./id-jag.ts";

type Route = (req: IncomingMessage, res: ServerResponse, query: string) => Promise<void>;
type Methods = Partial<Record<"GET" | "POST", Route>>;

/** What a step of the authorization server reads: the path below the public URL's, and the query. */
interface OAuthCtx {
  readonly path: string;
  readonly query: string;
  params: Params;
}

/** Token and revocation requests per source address per minute: far above what clients send, and checked before a client's metadata document may be fetched. */
const TOKEN_REQUESTS_PER_MINUTE = 120;
const REVOCATIONS_PER_MINUTE = 60;

/** The route, behind a limit per source address answered with 429 and Retry-After. */
function limited(limiter: { hit(key: string): number | Promise<number> }, clientIp: (req: IncomingMessage) => string, what: string, route: Route): Route {
  return async (req, res, query) => {
    const wait = await limiter.hit(clientIp(req));
    if (wait === 0) return route(req, res, query);
    req.resume();
    sendOAuthFailure(res, "rate_limited", `too many ${what}; try again later`, { "Retry-After": String(wait) });
  };
}

export class OAuthServer implements AuthorizationServer {
  readonly verifier: TokenVerifier;
  readonly account: OAuthAccountHost;
  readonly admin: SignedInPageHost;
  readonly #config: OAuthConfig;
  readonly #sweeper: Sweeper;
  readonly #routes: Map<string, Methods>;
  /** Built from #routes on first use, and again once the account page is mounted. */
  #router: Router<OAuthCtx> | undefined;
  /** The public URL's path, without its trailing slash, as of the URL it came from (publicUrl may be a function). */
  #base = { url: "", path: "" };
  readonly #grants: Grants;

  constructor(options: OAuthServerOptions) {
    const config = resolveOptions(options);
    this.#config = config;
    const clients = new ClientDirectory(config);
    const grants = new Grants(config);
    this.#grants = grants;
    const sessions = new BrowserSessions(config);
    const pages = new AuthorizeEndpoints(config, clients, grants, sessions);
    const upstream = config.identity ? new UpstreamSignIn(config, sessions) : undefined;
    const assertions = config.assertionIssuers.length > 0 ? new AssertionGrants(config, grants) : undefined;
    const registrations = oauthLimit(config, LIMITS.register, config.maxRegistrations, config.registrationWindowMs);
    const tokenRequests = new FixedWindowLimiter(TOKEN_REQUESTS_PER_MINUTE, 60_000, config.now);
    const revocations = new FixedWindowLimiter(REVOCATIONS_PER_MINUTE, 60_000, config.now);
    this.verifier = new OAuthTokenVerifier(config, grants);
    this.#sweeper = new Sweeper(config);
    const metadata: Route = async (_req, res) => sendJson(res, 200, authorizationServerMetadata(config));
    this.#routes = new Map<string, Methods>([
      [AS_PATHS.metadata, { GET: metadata }],
      [AS_PATHS.metadataRfc8414, { GET: metadata }],
      [AS_PATHS.metadataLegacy, { GET: metadata }],
      [
        AS_PATHS.register,
        {
          POST: limited(registrations, config.clientIp, "registrations", async (req, res) => {
            const reply = await registerClient(config, req, await readBody(req));
            sendJson(res, reply.status, reply.body, reply.headers);
          }),
        },
      ],
      [AS_PATHS.authorize, { GET: (req, res, query) => pages.authorize(req, res, query) }],
      [AS_PATHS.login, { POST: (req, res) => pages.loginForm(req, res) }],
      [AS_PATHS.consent, { GET: (req, res, query) => pages.consentGet(req, res, query), POST: (req, res) => pages.consentForm(req, res) }],
      [AS_PATHS.token, { POST: limited(tokenRequests, config.clientIp, "token requests", (req, res) => tokenEndpoint(req, res, clients, grants, assertions)) }],
      [AS_PATHS.revoke, { POST: limited(revocations, config.clientIp, "revocation requests", (req, res) => revocationEndpoint(req, res, clients, grants)) }],
    ]);
    if (upstream) {
      this.#routes.set(AS_PATHS.upstream, { GET: (req, res, query) => upstream.start(req, res, query) });
      this.#routes.set(AS_PATHS.upstreamCallback, { GET: (req, res, query) => upstream.callback(req, res, query) });
    }
    // The account and operator's pages are the gateway's (they list API tokens and tool
    // sessions too), served here so the sign-in cookie, scoped to this server's path, reaches them.
    const parts = pageHostParts(config, sessions, pages, (path, page) => {
      this.#routes.set(path, page);
      this.#router = undefined;
    });
    this.account = new OAuthAccountHost(parts, grants);
    this.admin = new SignedInPageHost(parts, "admin");
  }

  settled(): Promise<void> {
    return this.#grants.settled();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    return this.handleNow(req, res);
  }

  /** The server's paths under the public URL's: parsed again only when that URL changes. */
  #basePath(): string {
    const url = this.#config.publicUrl;
    if (url !== this.#base.url) this.#base = { url, path: new URL(url).pathname.replace(/\/$/, "") };
    return this.#base.path;
  }

  /** False at once for a path not its own (every tool request asks first); a promise only while it serves one. */
  handleNow(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    // Before anything reads the request: the front end's identity headers leave it here.
    this.#config.frontEnd?.take(req);
    const target = req.url ?? "/";
    const queryAt = target.indexOf("?");
    let path = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = queryAt < 0 ? "" : target.slice(queryAt + 1);
    const basePath = this.#basePath();
    if (basePath) {
      if (!path.startsWith(`${basePath}/`)) return false;
      path = path.slice(basePath.length);
    }
    if (isOpenIdConfiguration(path)) {
      // This is an OAuth server, not an OpenID provider: no partial OIDC document.
      setCors(res, CORS.oauth);
      sendOAuthFailure(res, "not_found", "this server does not support OpenID Connect discovery");
      return true;
    }
    this.#router ??= this.#buildRouter();
    const match = this.#router.match(path);
    if (!match) return false;
    const done = this.#router.serve(match, req, res, { path, query, params: {} });
    return done ? done.then(() => true) : true;
  }

  #buildRouter(): Router<OAuthCtx> {
    const step =
      (route: Route): Step<OAuthCtx> =>
      (req, res, ctx) =>
        route(req, res, ctx.query);
    const table = [...this.#routes].map(([path, methods]) => ({
      path,
      methods: { GET: methods.GET && step(methods.GET), POST: methods.POST && step(methods.POST) },
    }));
    return new Router<OAuthCtx>(table, {
      before: [
        (_req, res) => {
          setCors(res, CORS.oauth);
          this.#sweeper.maybeSweep();
          return NEXT;
        },
      ],
      cors: CORS.oauth,
      notFound: () => {},
      methodNotAllowed: (_req, res, _ctx, allow) => sendOAuthFailure(res, "method_not_allowed", "method not allowed", { Allow: allow }),
      failed: (err, _req, res, ctx) => this.#failed(err, res, ctx.path),
    });
  }

  /** An endpoint that threw or rejected: the store's outage and a bad body have their own answers. */
  #failed(err: unknown, res: ServerResponse, path: string): void {
    if (res.headersSent) {
      res.destroy();
    } else if (isStoreUnavailable(err)) {
      const why = WIRE_OF[err.code] === "store_full" ? "cannot save data just now" : "cannot reach its store";
      sendOAuthFailure(res, WIRE_OF[err.code], `the authorization server ${why}; try again shortly`, {
        "Retry-After": String(STORE_RETRY_AFTER_SECONDS),
      });
    } else if (err instanceof BodyError) {
      sendOAuthFailure(res, wireCodeOf(err.code), err.code === "HUBMCP_BODY_TOO_LARGE" ? "request body too large" : "request body unreadable");
    } else {
      this.#config.logger.error("oauth endpoint failed", { path, error: err instanceof Error ? err.name : "unknown" });
      sendOAuthFailure(res, "internal_error", "the authorization server failed; try again");
    }
  }
}

function isOpenIdConfiguration(path: string): boolean {
  return path.startsWith("/.well-known/openid-configuration") || path.endsWith("/.well-known/openid-configuration");
}
