// The authorization server's side of the gateway's account page: the signed-in person (by
// whatever path they signed in), CSRF tokens bound to their browser session, the sign-in
// pages, a rate limit, and the person's own grants. Grant ids are checked against the
// person, so another's id is the same "no such grant" as a made-up one.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccountHost, ConnectedApp } from "../contracts.ts";
import type { AuthorizeEndpoints } from "./authorize.ts";
import type { BrowserSessions } from "./browser-session.ts";
import { CLIENTS, type ClientRecord } from "./clients.ts";
import { GRANT_USES, GRANTS, type GrantRecord, type Grants } from "./grants.ts";
import { AS_PATHS } from "./metadata.ts";
import type { OAuthConfig } from "./options.ts";
import { LIMITS, oauthLimit } from "./rate-limit.ts";

type PageHandler = (req: IncomingMessage, res: ServerResponse, query: string) => Promise<void>;

/** Requests per address per minute: a person clicking through their page never comes near. */
const ACCOUNT_REQUESTS_PER_MINUTE = 60;
const CSRF_FORM = "account";

export class OAuthAccountHost implements AccountHost {
  readonly #config: OAuthConfig;
  readonly #sessions: BrowserSessions;
  readonly #grants: Grants;
  readonly #pages: AuthorizeEndpoints;
  readonly #limit: ReturnType<typeof oauthLimit>;
  readonly #mount: (page: { GET: PageHandler; POST: PageHandler }) => void;

  constructor(
    config: OAuthConfig,
    sessions: BrowserSessions,
    grants: Grants,
    pages: AuthorizeEndpoints,
    mount: (page: { GET: PageHandler; POST: PageHandler }) => void,
  ) {
    this.#config = config;
    this.#sessions = sessions;
    this.#grants = grants;
    this.#pages = pages;
    this.#limit = oauthLimit(config, LIMITS.account, ACCOUNT_REQUESTS_PER_MINUTE, 60_000);
    this.#mount = mount;
  }

  user(req: IncomingMessage): Promise<string | undefined> {
    return this.#sessions.user(req);
  }

  // A browser signed in by the sign-in page has its cookie; one a front proxy vouches for
  // (trustedUserHeader) may not, and gets one here, or no form of the page would ever pass.
  async csrfToken(req: IncomingMessage, user: string): Promise<{ token: string; setCookie: string[] }> {
    const browser = this.#sessions.browser(req);
    return { token: await this.#sessions.csrfToken(browser.id, CSRF_FORM, user), setCookie: browser.setCookie };
  }

  csrfValid(req: IncomingMessage, user: string, token: string | undefined): Promise<boolean> {
    return this.#sessions.csrfValid(req, CSRF_FORM, user, token);
  }

  signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.#pages.accountSignIn(req, res);
  }

  hit(req: IncomingMessage): number | Promise<number> {
    return this.#limit.hit(this.#config.clientIp(req));
  }

  async grantsOf(user: string): Promise<ConnectedApp[]> {
    const [grants, uses] = await Promise.all([this.#config.store.list<GrantRecord>(GRANTS), this.#config.store.list<{ at: number }>(GRANT_USES)]);
    const usedAt = new Map(uses.map(({ id, value }) => [id, value.at]));
    const apps: ConnectedApp[] = [];
    for (const { id, value } of grants.filter(({ value }) => value.user === user && !value.revoked)) {
      // Its last refresh or the last request one of its access tokens served, whichever is later.
      const used = Math.max(value.used_at ?? 0, usedAt.get(id) ?? 0);
      apps.push({
        id,
        clientName: value.client_name ?? (await this.#clientName(value.client_id)),
        createdAt: value.created_at,
        ...(used > 0 ? { usedAt: used } : {}),
      });
    }
    return apps.sort((a, b) => b.createdAt - a.createdAt);
  }

  async revokeGrant(user: string, id: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(id)) return false;
    if ((await this.#grants.activeGrant(id))?.user !== user) return false;
    await this.#grants.revokeGrant(id);
    this.#config.logger.info("oauth grant revoked by its user", { user });
    return true;
  }

  serve(page: { GET: PageHandler; POST: PageHandler }): string {
    this.#mount(page);
    return AS_PATHS.account;
  }

  /** A grant made before grants kept the client's name: the registration's, else the client id (a metadata document's URL). */
  async #clientName(clientId: string): Promise<string> {
    return (await this.#config.store.get<ClientRecord>(CLIENTS, clientId))?.client_name ?? clientId;
  }
}
