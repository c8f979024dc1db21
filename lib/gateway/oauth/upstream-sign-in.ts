// Sign-in at the hub's OpenID provider, for the sign-in page: out to the provider with a fresh
// state, nonce and PKCE verifier, bound to this browser's cookie, and back with a code that
// becomes a verified ID token, an account (created or refreshed, groups as the provider says
// now) and a browser session. An unreachable provider is a 502 page, never a 500.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BrowserSessions } from "./browser-session.ts";
import { hashSecret, randomToken, safeEqual } from "./crypto.ts";
import { ProviderUnreachable } from "./fetch-json.ts";
import { sendHtml, sendRedirect, singleParams } from "./http-io.ts";
import { JwtRejected } from "./jwt-verify.ts";
import { AS_PATHS } from "./metadata.ts";
import { REQUEST_LIFETIME_MS, type OAuthConfig } from "./options.ts";
import { errorPage } from "./pages.ts";
import { accountName, mapGroups } from "./person-claims.ts";
import { LIMITS, oauthLimit } from "./rate-limit.ts";
import { OpenIdRelyingParty } from "./upstream-oidc.ts";

export const UPSTREAM = "oauth-upstream";
const REQUEST_SHAPE = /^[A-Za-z0-9_-]{43}$/;

interface UpstreamRecord {
  /** The browser that started this sign-in (hash of its cookie id): only it may finish it. */
  browser: string;
  request: string;
  nonce: string;
  verifier: string;
  expires_at: number;
}

export class UpstreamSignIn {
  readonly #config: OAuthConfig;
  readonly #sessions: BrowserSessions;
  readonly relyingParty: OpenIdRelyingParty;
  /** Each start stores a record and may ask the provider: as many a minute per address as authorization requests. */
  readonly #starts: ReturnType<typeof oauthLimit>;

  constructor(config: OAuthConfig, sessions: BrowserSessions) {
    const identity = config.identity!;
    this.#config = config;
    this.#sessions = sessions;
    this.#starts = oauthLimit(config, LIMITS.authorize, 60, 60_000);
    this.relyingParty = new OpenIdRelyingParty({
      issuer: identity.issuer,
      clientId: identity.clientId,
      clientSecret: identity.clientSecret,
      scopes: identity.scopes,
      now: config.now,
    });
  }

  /** The link on the sign-in page for this authorization request. */
  static href(requestId: string): string {
    return `${leaf(AS_PATHS.upstream)}?request=${encodeURIComponent(requestId)}`;
  }

  async start(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    const requestId = singleParams(query)?.get("request") ?? "";
    if (!REQUEST_SHAPE.test(requestId)) return fail(res, 400, "Sign-in expired", "Start the sign-in again from the application.");
    const wait = await this.#starts.hit(this.#config.clientIp(req));
    if (wait > 0) return fail(res, 429, "Too many sign-in attempts", "Wait a minute and start the sign-in again.", { "Retry-After": String(wait) });
    const browser = this.#sessions.browser(req);
    const state = randomToken();
    const record: UpstreamRecord = {
      browser: hashSecret(browser.id),
      request: requestId,
      nonce: randomToken(),
      verifier: randomToken(),
      expires_at: this.#config.now() + REQUEST_LIFETIME_MS,
    };
    let location: string;
    try {
      location = await this.relyingParty.authorizationUrl(this.#callbackUrl(), state, record.nonce, record.verifier);
    } catch (err) {
      return this.#unreachable(res, err);
    }
    await this.#config.store.put(UPSTREAM, hashSecret(state), record);
    sendRedirect(res, location, browser.setCookie);
  }

  async callback(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    const params = singleParams(query);
    const state = params?.get("state") ?? "";
    const id = hashSecret(state);
    const record = state ? await this.#config.store.get<UpstreamRecord>(UPSTREAM, id) : undefined;
    if (!params || !record || record.expires_at <= this.#config.now()) {
      return fail(res, 400, "Sign-in expired", "Start the sign-in again from the application.");
    }
    const browser = this.#sessions.browser(req);
    if (browser.setCookie.length > 0 || !safeEqual(hashSecret(browser.id), record.browser)) {
      return fail(res, 400, "Sign-in expired", "This sign-in was started in another browser. Start it again from the application.");
    }
    // One use: a replayed callback URL finds nothing.
    await this.#config.store.delete(UPSTREAM, id);
    const code = params.get("code");
    if (!code) return fail(res, 403, "Sign-in cancelled", `${this.#label()} did not sign you in. Start the sign-in again from the application.`);
    let claims;
    try {
      claims = await this.relyingParty.redeem(code, this.#callbackUrl(), record.verifier, record.nonce);
    } catch (err) {
      if (!(err instanceof JwtRejected)) return this.#unreachable(res, err);
      this.#config.logger.warn("oidc sign-in refused", { reason: err.message });
      return fail(res, 403, "Sign-in failed", `The answer from ${this.#label()} could not be verified. Start the sign-in again from the application.`);
    }
    const identity = this.#config.identity!;
    const user = accountName(claims, identity.nameClaim);
    if (!user) {
      this.#config.logger.warn("oidc sign-in refused", { reason: "the account name claim is missing or not a valid name" });
      return fail(res, 403, "Sign-in failed", "Your account name at the identity provider can't be used on this hub. Ask the hub's operator.");
    }
    const provision = this.#config.accounts.provision;
    const groups = mapGroups(claims[identity.groupsClaim], identity);
    if (!provision || !(await provision.call(this.#config.accounts, user, groups, identity.createAccounts))) {
      return fail(res, 403, "No account", "You have no account on this hub yet. Ask the hub's operator for one.");
    }
    this.#config.logger.info("oidc sign-in", { user, groups: groups.length });
    const session = await this.#sessions.signIn(user);
    sendRedirect(res, `../${leaf(AS_PATHS.consent)}?request=${encodeURIComponent(record.request)}`, session.setCookie);
  }

  #callbackUrl(): string {
    return `${this.#config.publicUrl}${AS_PATHS.upstreamCallback}`;
  }

  #label(): string {
    return this.#config.identity!.label;
  }

  #unreachable(res: ServerResponse, err: unknown): void {
    if (!(err instanceof ProviderUnreachable)) throw err;
    this.#config.logger.warn("oidc provider unreachable", { reason: err.message });
    fail(res, 502, "Sign-in unavailable", `${this.#label()} can't be reached just now. Try again in a few minutes.`, { "Retry-After": "30" });
  }
}

function fail(res: ServerResponse, status: number, title: string, message: string, headers: Record<string, string> = {}): void {
  sendHtml(res, status, errorPage(title, message), [], headers);
}

function leaf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
