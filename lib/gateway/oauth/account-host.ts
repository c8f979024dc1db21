// The authorization server's side of the hub's own signed-in pages (the account page, the
// operator's page): the signed-in person (by whatever path they signed in), CSRF tokens bound
// to their browser session and to the page, the sign-in pages ending back on the page, a rate
// limit, and, for the account page, the person's own grants. Grant ids are checked against
// the person, so another's id is the same "no such grant" as a made-up one.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccountHost, ConnectedApp, SignedInPage } from "../contracts/interfaces.ts";
import type { AuthorizeEndpoints, OwnPage } from "./authorize.ts";
import type { BrowserSessions } from "./browser-session.ts";
import { CLIENTS, type ClientRecord } from "./clients.ts";
import { GRANT_USES, GRANTS, type GrantRecord, type Grants } from "./grants.ts";
import { AS_PATHS } from "./metadata.ts";
import type { OAuthConfig } from "./options.ts";
import { LIMITS, oauthLimit } from "./rate-limit.ts";

type PageHandler = (req: IncomingMessage, res: ServerResponse, query: string) => Promise<void>;
type Mount = (path: string, page: { GET: PageHandler; POST: PageHandler }) => void;

/** Requests per address per minute, the hub's pages together: a person clicking through them never comes near. */
const PAGE_REQUESTS_PER_MINUTE = 60;

/** What the hub's signed-in pages share: one limit per address across them. */
export interface PageHostParts {
  readonly config: OAuthConfig;
  readonly sessions: BrowserSessions;
  readonly pages: AuthorizeEndpoints;
  readonly limit: ReturnType<typeof oauthLimit>;
  readonly mount: Mount;
}

export function pageHostParts(config: OAuthConfig, sessions: BrowserSessions, pages: AuthorizeEndpoints, mount: Mount): PageHostParts {
  return { config, sessions, pages, limit: oauthLimit(config, LIMITS.account, PAGE_REQUESTS_PER_MINUTE, 60_000), mount };
}

/** One of the hub's own pages on the browser session; its name is its CSRF form, so one page's token is no good on another. */
export class SignedInPageHost implements SignedInPage {
  readonly #parts: PageHostParts;
  readonly #page: OwnPage;

  constructor(parts: PageHostParts, page: OwnPage) {
    this.#parts = parts;
    this.#page = page;
  }

  user(req: IncomingMessage): Promise<string | undefined> {
    return this.#parts.sessions.user(req);
  }

  // A browser signed in by the sign-in page has its cookie; one a front proxy vouches for
  // (trustedUserHeader) may not, and gets one here, or no form of the page would ever pass.
  async csrfToken(req: IncomingMessage, user: string): Promise<{ token: string; setCookie: string[] }> {
    const browser = this.#parts.sessions.browser(req);
    return { token: await this.#parts.sessions.csrfToken(browser.id, this.#page, user), setCookie: browser.setCookie };
  }

  csrfValid(req: IncomingMessage, user: string, token: string | undefined): Promise<boolean> {
    return this.#parts.sessions.csrfValid(req, this.#page, user, token);
  }

  signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.#parts.pages.pageSignIn(req, res, this.#page);
  }

  signOut(req: IncomingMessage): Promise<string[]> {
    return this.#parts.sessions.signOut(req);
  }

  hit(req: IncomingMessage): number | Promise<number> {
    return this.#parts.limit.hit(this.#parts.config.clientIp(req));
  }

  serve(page: { GET: PageHandler; POST: PageHandler }): string {
    const path = AS_PATHS[this.#page];
    this.#parts.mount(path, page);
    return path;
  }
}

export class OAuthAccountHost extends SignedInPageHost implements AccountHost {
  readonly #config: OAuthConfig;
  readonly #grants: Grants;

  constructor(parts: PageHostParts, grants: Grants) {
    super(parts, "account");
    this.#config = parts.config;
    this.#grants = grants;
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

  /** A grant made before grants kept the client's name: the registration's, else the client id (a metadata document's URL). */
  async #clientName(clientId: string): Promise<string> {
    return (await this.#config.store.get<ClientRecord>(CLIENTS, clientId))?.client_name ?? clientId;
  }
}
