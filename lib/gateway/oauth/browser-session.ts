// The browser side of sign-in: a cookie that identifies the browser, CSRF tokens bound to
// that cookie and to the authorization request, and the signed-in session. Sign-in replaces
// the cookie, so a cookie planted before sign-in (session fixation) is worth nothing after.
// On https the cookie's name carries a prefix the browser enforces, so a sibling subdomain or
// a plain-http answer can't plant one: `__Host-` (Secure, Path=/, this host only) when the
// hub owns its origin, `__Secure-` with the hub's own path when it shares the origin under a
// path (Path=/ would hand the sign-in to every other application on that origin).
import type { IncomingMessage } from "node:http";
import { hashSecret, hmac, randomToken, safeEqual } from "./crypto.ts";
import type { FrontEndPerson } from "./front-end.ts";
import { cookieValue } from "./http-io.ts";
import { SESSION_LIFETIME_MS, type OAuthConfig } from "./options.ts";

const COOKIE = "hub_oauth";
const COOKIE_PATH = "/developer/oauth";
export const SESSIONS = "oauth-sessions";
const ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

interface SessionRecord {
  user: string;
  expires_at: number;
}

export class BrowserSessions {
  readonly #config: OAuthConfig;
  #csrfKey: Promise<Buffer> | undefined;

  constructor(config: OAuthConfig) {
    this.#config = config;
  }

  /** The browser's id, minting one (and the cookie that carries it) when it has none. */
  browser(req: IncomingMessage): { id: string; setCookie: string[] } {
    const existing = cookieValue(req, this.#name());
    if (existing && ID_SHAPE.test(existing)) return { id: existing, setCookie: [] };
    const id = randomToken();
    return { id, setCookie: [this.#cookie(id)] };
  }

  async csrfToken(browserId: string, form: string, requestId: string): Promise<string> {
    return hmac(await this.#key(), `${form}\n${requestId}\n${browserId}`);
  }

  async csrfValid(req: IncomingMessage, form: string, requestId: string, token: string | undefined): Promise<boolean> {
    const browserId = cookieValue(req, this.#name());
    if (!browserId || !ID_SHAPE.test(browserId) || typeof token !== "string") return false;
    return safeEqual(await this.csrfToken(browserId, form, requestId), token);
  }

  /** Starts a session for `user` under a new browser id; answers its cookie and id. */
  async signIn(user: string): Promise<{ id: string; setCookie: string[] }> {
    const id = randomToken();
    const record: SessionRecord = { user, expires_at: this.#config.now() + SESSION_LIFETIME_MS };
    await this.#config.store.put(SESSIONS, hashSecret(id), record);
    return { id, setCookie: [this.#cookie(id)] };
  }

  /** Forgets this browser's session, if it has one; answers the cookie that clears it. */
  async signOut(req: IncomingMessage): Promise<string[]> {
    const id = cookieValue(req, this.#name());
    if (id && ID_SHAPE.test(id)) await this.#config.store.delete(SESSIONS, hashSecret(id));
    return [this.#cookie("", 0)];
  }

  /** The signed-in account: from the front end or the trusted proxy header when configured, else the session. */
  async user(req: IncomingMessage): Promise<string | undefined> {
    const front = this.#config.frontEnd?.personOf(req);
    if (front) return this.#vouched(front);
    const header = this.#config.trustedUserHeader;
    if (header) {
      const value = req.headers[header];
      if (typeof value === "string" && value.trim()) {
        const user = value.trim();
        return (await this.#config.accounts.groupsOf(user)) ? user : undefined;
      }
    }
    const id = cookieValue(req, this.#name());
    if (!id || !ID_SHAPE.test(id)) return undefined;
    const record = await this.#config.store.get<SessionRecord>(SESSIONS, hashSecret(id));
    if (!record || record.expires_at <= this.#config.now()) return undefined;
    return (await this.#config.accounts.groupsOf(record.user)) ? record.user : undefined;
  }

  /** A person the front end vouched for: their account (made or refreshed as the settings say), if they may have one. */
  async #vouched(person: FrontEndPerson): Promise<string | undefined> {
    const { accounts } = this.#config;
    const create = this.#config.frontEnd!.createAccounts;
    if (person.groups === undefined && (await accounts.groupsOf(person.user))) return person.user;
    if (!accounts.provision) return undefined;
    const groups = person.groups ?? [];
    return (await accounts.provision(person.user, groups, create)) ? person.user : undefined;
  }

  /** The cookie's name for the hub's current public URL (it may be known only once the gateway listens). */
  #name(): string {
    if (!this.#config.secureCookies) return COOKIE;
    return this.#basePath() ? `__Secure-${COOKIE}` : `__Host-${COOKIE}`;
  }

  #basePath(): string {
    return new URL(this.#config.publicUrl).pathname.replace(/\/$/, "");
  }

  #cookie(id: string, maxAgeSeconds = SESSION_LIFETIME_MS / 1000): string {
    const lifetime = `Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax`;
    const base = this.#basePath();
    if (!this.#config.secureCookies) return `${COOKIE}=${id}; Path=${base}${COOKIE_PATH}; ${lifetime}`;
    return `${this.#name()}=${id}; Path=${base ? `${base}${COOKIE_PATH}` : "/"}; ${lifetime}; Secure`;
  }

  #key(): Promise<Buffer> {
    this.#csrfKey ??= this.#config.store.secret("oauth-csrf-key");
    return this.#csrfKey;
  }
}
