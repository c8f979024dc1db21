// The authorization endpoint and the sign-in and consent pages behind it. The client and its
// redirect are checked first: until both are known good, every problem is an error page and
// never a redirect, so the endpoint can't be used to bounce a browser to an attacker.
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomToken } from "./crypto.ts";
import type { Client, ClientDirectory } from "./clients.ts";
import type { BrowserSessions } from "./browser-session.ts";
import type { Grants } from "./grants.ts";
import { canonicalResource } from "./resources.ts";
import { readBody, sendHtml, sendRedirect, singleParams } from "./http-io.ts";
import { AS_PATHS } from "./metadata.ts";
import { REQUEST_LIFETIME_MS, type OAuthConfig } from "./options.ts";
import { consentPage, errorPage, loginPage, noAccessPage } from "./pages.ts";
import { LoginBackoff } from "./login-backoff.ts";
import { isS256Challenge } from "./pkce.ts";
import { LIMITS, oauthLimit } from "./rate-limit.ts";
import { redirectMatches, redirectWith } from "./redirects.ts";
import { UpstreamSignIn } from "./upstream-sign-in.ts";

export const REQUESTS = "oauth-requests";

/** A checked authorization request, waiting for sign-in and consent. */
interface PendingRequest {
  client_id: string;
  redirect_uri: string;
  state?: string;
  challenge: string;
  resource?: string;
  expires_at: number;
  /** A sign-in for one of the hub's own pages rather than a client: where it ends, a fixed name, never a URL. */
  ends_at?: OwnPage;
}

/** The hub's own pages a sign-in may end on: names, so no request can choose where a browser goes. */
export type OwnPage = "account" | "admin";

/** The "application" a sign-in for one of the hub's own pages names on the login page, and what it is for. */
const OWN_PAGES: Record<OwnPage, { client: Client; purpose: string }> = {
  account: { client: ownPage("Your account page"), purpose: "Your account page lists your tokens, connected apps and tool sessions." },
  admin: { client: ownPage("The operator's page"), purpose: "The operator's page shows the hub's tool sessions, usage and health." },
};

function ownPage(name: string): Client {
  return { client_id: "", client_name: name, redirect_uris: [], token_endpoint_auth_method: "none", secret_hash: undefined, registered: true };
}

export class AuthorizeEndpoints {
  readonly #config: OAuthConfig;
  readonly #clients: ClientDirectory;
  readonly #grants: Grants;
  readonly #sessions: BrowserSessions;
  readonly #logins: ReturnType<typeof oauthLimit>;
  readonly #backoff: LoginBackoff;
  readonly #requests: ReturnType<typeof oauthLimit>;

  constructor(config: OAuthConfig, clients: ClientDirectory, grants: Grants, sessions: BrowserSessions) {
    this.#config = config;
    this.#clients = clients;
    this.#grants = grants;
    this.#sessions = sessions;
    this.#logins = oauthLimit(config, LIMITS.login, 10, 60_000);
    this.#backoff = new LoginBackoff(config.now);
    this.#requests = oauthLimit(config, LIMITS.authorize, 60, 60_000);
  }

  async authorize(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    // Before anything else: looking the client up may fetch its metadata document.
    const wait = await this.#requests.hit(this.#config.clientIp(req));
    if (wait > 0) {
      return fail(res, 429, "Too many sign-in attempts", "Wait a minute and start the sign-in again from the application.", { "Retry-After": String(wait) });
    }
    const params = singleParams(query);
    if (!params) return fail(res, 400, "Invalid request", "A parameter was sent more than once.");
    const client = await this.#clients.find(params.get("client_id") ?? "");
    if (!client) return fail(res, 400, "Unknown application", "This application is not registered with the hub. Start the sign-in again from the application.");
    let redirectUri = params.get("redirect_uri");
    if (redirectUri === undefined && client.redirect_uris.length === 1) redirectUri = client.redirect_uris[0]!;
    if (redirectUri === undefined || !redirectMatches(client.redirect_uris, redirectUri)) {
      return fail(res, 400, "Invalid redirect", "The application asked to return to an address it did not register.");
    }
    const state = params.get("state");
    const back = (error: string, description: string): void =>
      sendRedirect(res, redirectWith(redirectUri, { error, error_description: description, state, iss: this.#config.issuer }));
    if (params.get("response_type") !== "code") return back("unsupported_response_type", "response_type must be code");
    const challenge = params.get("code_challenge");
    if (!isS256Challenge(challenge, params.get("code_challenge_method"))) {
      return back("invalid_request", "PKCE with code_challenge_method S256 is required");
    }
    const resource = this.#resource(params.get("resource"));
    if (resource === false) return back("invalid_target", "resource is not served by this hub");
    const pending: PendingRequest = {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      ...(state !== undefined ? { state } : {}),
      challenge: challenge!,
      ...(resource !== undefined ? { resource } : {}),
      expires_at: this.#config.now() + REQUEST_LIFETIME_MS,
    };
    const requestId = randomToken();
    await this.#config.store.put(REQUESTS, requestId, pending);
    await this.#show(req, res, requestId, pending, client);
  }

  async loginForm(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = singleParams(await readBody(req));
    if (!this.#config.passwords) return fail(res, 403, "Passwords are off", "This hub signs people in through its identity provider only.");
    const requestId = form?.get("request") ?? "";
    const pending = await this.#pending(requestId);
    if (!form || !pending) return fail(res, 400, "Sign-in expired", "Start the sign-in again from the application.");
    if (!(await this.#sessions.csrfValid(req, "login", requestId, form.get("csrf")))) {
      return fail(res, 403, "Form expired", "Reload the page and try again.");
    }
    const client = await this.#clientOf(pending);
    if (!client) return fail(res, 400, "Unknown application", "Start the sign-in again from the application.");
    const username = (form.get("username") ?? "").trim().slice(0, 200);
    const password = form.get("password") ?? "";
    // Per address, then per account: many addresses guessing at one account are held back too.
    const wait = (await this.#logins.hit(this.#config.clientIp(req))) || (username ? this.#backoff.attempt(username) : 0);
    if (wait > 0) {
      const message = `Too many attempts. Wait ${wait === 1 ? "a second" : wait < 60 ? `${wait} seconds` : "a minute"} and try again.`;
      return this.#login(req, res, requestId, client, message, username, 429, { "Retry-After": String(wait) });
    }
    const account = username && password ? await this.#config.accounts.verifyPassword(username, password) : null;
    if (!account) {
      return this.#login(req, res, requestId, client, "Wrong user name or password.", username, 401);
    }
    this.#backoff.succeeded(username);
    this.#config.logger.info("oauth sign-in", { user: account.user });
    const session = await this.#sessions.signIn(account.user);
    // Relative, like the form actions: the pages keep working on whatever host name the browser used.
    sendRedirect(res, `${leaf(AS_PATHS.consent)}?request=${encodeURIComponent(requestId)}`, session.setCookie);
  }

  async consentGet(req: IncomingMessage, res: ServerResponse, query: string): Promise<void> {
    const requestId = singleParams(query)?.get("request") ?? "";
    const pending = await this.#pending(requestId);
    const client = pending && (await this.#clientOf(pending));
    if (!pending || !client) return fail(res, 400, "Sign-in expired", "Start the sign-in again from the application.");
    await this.#show(req, res, requestId, pending, client);
  }

  async consentForm(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = singleParams(await readBody(req));
    const requestId = form?.get("request") ?? "";
    const pending = await this.#pending(requestId);
    // An account-page sign-in has nothing to consent to: no client may be approved through it.
    if (!form || !pending || pending.ends_at) return fail(res, 400, "Sign-in expired", "Start the sign-in again from the application.");
    if (!(await this.#sessions.csrfValid(req, "consent", requestId, form.get("csrf")))) {
      return fail(res, 403, "Form expired", "Reload the page and try again.");
    }
    const user = await this.#sessions.user(req);
    const client = await this.#clients.find(pending.client_id);
    if (!user || !client) return fail(res, 401, "Not signed in", "Start the sign-in again from the application.");
    await this.#config.store.delete(REQUESTS, requestId);
    const base = { state: pending.state, iss: this.#config.issuer };
    if (form.get("decision") !== "approve") {
      return sendRedirect(res, redirectWith(pending.redirect_uri, { error: "access_denied", error_description: "the user denied access", ...base }));
    }
    const groups = (await this.#config.accounts.groupsOf(user)) ?? [];
    if (!(await this.#config.resourceAccess(pending.resource, groups))) {
      return sendRedirect(
        res,
        redirectWith(pending.redirect_uri, { error: "access_denied", error_description: "the account has no access to this resource", ...base }),
      );
    }
    const code = await this.#grants.approve(client, user, pending.resource, pending.redirect_uri, pending.challenge);
    await this.#clients.markUsed(client);
    this.#config.logger.info("oauth grant approved", { user, client_id: client.client_id });
    sendRedirect(res, redirectWith(pending.redirect_uri, { code, ...base }));
  }

  /**
   * Signs a person in for one of the hub's own pages: the same login page (and whatever else
   * signs people in there) as for an application, ending on that page instead of a consent.
   */
  async pageSignIn(req: IncomingMessage, res: ServerResponse, page: OwnPage): Promise<void> {
    const wait = await this.#requests.hit(this.#config.clientIp(req));
    if (wait > 0) return fail(res, 429, "Too many sign-in attempts", "Wait a minute and open the page again.", { "Retry-After": String(wait) });
    const pending: PendingRequest = {
      client_id: "",
      redirect_uri: "",
      challenge: "",
      ends_at: page,
      expires_at: this.#config.now() + REQUEST_LIFETIME_MS,
    };
    const requestId = randomToken();
    await this.#config.store.put(REQUESTS, requestId, pending);
    await this.#show(req, res, requestId, pending, OWN_PAGES[page].client);
  }

  async #clientOf(pending: PendingRequest): Promise<Client | undefined> {
    return pending.ends_at ? OWN_PAGES[pending.ends_at].client : this.#clients.find(pending.client_id);
  }

  /** The login page when nobody is signed in, else the consent page (or, for one of the hub's own pages, that page). */
  async #show(req: IncomingMessage, res: ServerResponse, requestId: string, pending: PendingRequest, client: Client): Promise<void> {
    const user = await this.#sessions.user(req);
    if (!user) return this.#login(req, res, requestId, client, undefined, undefined, 200);
    if (pending.ends_at) {
      await this.#config.store.delete(REQUESTS, requestId);
      return sendRedirect(res, leaf(AS_PATHS[pending.ends_at]));
    }
    const browser = this.#sessions.browser(req);
    const view = {
      action: leaf(AS_PATHS.consent),
      requestId,
      csrf: await this.#sessions.csrfToken(browser.id, "consent", requestId),
      clientName: clientLabel(client),
      redirectHost: redirectHost(pending.redirect_uri),
      toolLabel: this.#toolLabel(pending.resource),
      user,
    };
    // Someone outside the tool's groups is told so before anything is offered to allow.
    const groups = (await this.#config.accounts.groupsOf(user)) ?? [];
    const allowed = await this.#config.resourceAccess(pending.resource, groups);
    sendHtml(res, allowed ? 200 : 403, allowed ? consentPage(view) : noAccessPage(view), browser.setCookie);
  }

  async #login(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    client: Client,
    error: string | undefined,
    username: string | undefined,
    status: number,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const browser = this.#sessions.browser(req);
    const own = Object.values(OWN_PAGES).find((p) => p.client === client);
    const html = loginPage({
      action: leaf(AS_PATHS.login),
      hub: new URL(this.#config.publicUrl).host,
      requestId,
      csrf: await this.#sessions.csrfToken(browser.id, "login", requestId),
      clientName: clientLabel(client),
      ...(own ? { purpose: own.purpose } : {}),
      ...(error ? { error } : {}),
      ...(username ? { username } : {}),
      ...(this.#config.identity ? { provider: { label: this.#config.identity.label, href: UpstreamSignIn.href(requestId) } } : {}),
      passwords: this.#config.passwords,
    });
    sendHtml(res, status, html, browser.setCookie, headers);
  }

  async #pending(requestId: string): Promise<PendingRequest | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(requestId)) return undefined;
    const pending = await this.#config.store.get<PendingRequest>(REQUESTS, requestId);
    return pending && pending.expires_at > this.#config.now() ? pending : undefined;
  }

  /** undefined for the whole hub, the canonical resource for one tool, false when not ours. */
  #resource(resource: string | undefined): string | undefined | false {
    return resource === undefined ? undefined : canonicalResource(this.#config.publicUrl, resource);
  }

  #toolLabel(resource: string | undefined): string {
    if (resource === undefined) return "all tools of this hub";
    const match = /^\/api\/mcp\/([^/?#]+)/.exec(resource.slice(this.#config.publicUrl.length));
    return match ? `the tool “${safeDecode(match[1]!)}”` : resource;
  }
}

function fail(res: ServerResponse, status: number, title: string, message: string, headers: Record<string, string> = {}): void {
  sendHtml(res, status, errorPage(title, message), [], headers);
}

function clientLabel(client: Client): string {
  return client.client_name ?? (client.registered ? "An application" : client.client_id);
}

function redirectHost(uri: string): string {
  const url = new URL(uri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.host : `${url.protocol}//`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The last segment of one of our page paths: all of them live in the same folder. */
function leaf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
