// Who is looking at /admin: a sign-in of the operator's page's own (the OAuth pages' cookie
// is scoped to their path and never reaches /admin), with the same primitives: a random id
// whose hash is stored, a cookie only this path gets (HttpOnly, SameSite=Strict, `__Secure-`
// on https), CSRF tokens bound to the session, groups checked on every request so an
// operator removed from the admin group loses the page at once.
import type { IncomingMessage } from "node:http";
import type { AccountDirectory, RecordStore } from "../contracts.ts";
import { hashSecret, hmac, randomToken, safeEqual } from "../oauth/crypto.ts";
import { cookieValue } from "../oauth/http-io.ts";

export const ADMIN_SESSIONS = "admin-sessions";
const COOKIE = "hub_admin";
const ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** A working day: an operator's page left open overnight signs in again. */
export const ADMIN_SESSION_MS = 8 * 3_600_000;

interface AdminSessionRecord {
  user: string;
  expires_at: number;
}

export interface SignedIn {
  user: string;
  groups: readonly string[];
  /** The session id, which CSRF tokens are bound to; undefined for a bearer credential. */
  session?: string;
}

export class AdminSessions {
  readonly #store: RecordStore;
  readonly #accounts: AccountDirectory;
  readonly #publicUrl: () => string;
  #csrfKey: Promise<Buffer> | undefined;

  constructor(store: RecordStore, accounts: AccountDirectory, publicUrl: () => string) {
    this.#store = store;
    this.#accounts = accounts;
    this.#publicUrl = publicUrl;
  }

  /** The signed-in account of this request's cookie, with its groups as they are now. */
  async current(req: IncomingMessage): Promise<SignedIn | undefined> {
    const id = cookieValue(req, this.#name());
    if (!id || !ID_SHAPE.test(id)) return undefined;
    const record = await this.#store.get<AdminSessionRecord>(ADMIN_SESSIONS, hashSecret(id));
    if (!record || record.expires_at <= Date.now()) return undefined;
    const groups = await this.#accounts.groupsOf(record.user);
    return groups ? { user: record.user, groups, session: id } : undefined;
  }

  async signIn(user: string): Promise<string> {
    const id = randomToken();
    await this.#store.put(ADMIN_SESSIONS, hashSecret(id), { user, expires_at: Date.now() + ADMIN_SESSION_MS } satisfies AdminSessionRecord);
    return this.#cookie(id, ADMIN_SESSION_MS / 1000);
  }

  async signOut(session: string): Promise<string> {
    await this.#store.delete(ADMIN_SESSIONS, hashSecret(session));
    return this.#cookie("", 0);
  }

  async csrfToken(session: string, form: string): Promise<string> {
    return hmac(await this.#key(), `${form}\n${session}`);
  }

  async csrfValid(session: string | undefined, form: string, token: string | undefined): Promise<boolean> {
    if (session === undefined || typeof token !== "string") return false;
    return safeEqual(await this.csrfToken(session, form), token);
  }

  /** Where the page's forms post to and its cookie is scoped: `{publicUrl's path}/admin`. */
  path(): string {
    return `${new URL(this.#publicUrl()).pathname.replace(/\/$/, "")}/admin`;
  }

  #secure(): boolean {
    return this.#publicUrl().startsWith("https:");
  }

  #name(): string {
    return this.#secure() ? `__Secure-${COOKIE}` : COOKIE;
  }

  #cookie(id: string, maxAge: number): string {
    return `${this.#name()}=${id}; Path=${this.path()}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${this.#secure() ? "; Secure" : ""}`;
  }

  #key(): Promise<Buffer> {
    this.#csrfKey ??= this.#store.secret("admin-csrf-key");
    return this.#csrfKey;
  }
}
