// `{publicUrl}/admin`: the operator's page, for members of gateway.json's admin groups only.
// Anyone else signed in, or holding a bearer, gets the gateway's plain 404 (the page reveals
// nothing, not even that it exists for them); nobody signed in gets the sign-in form. Forms
// that change something (stop a tool session, sign out) carry a CSRF token bound to the
// session; a bearer credential needs none, since no browser sends one on its own.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isAdmin } from "../admin-settings.ts";
import type { AuditTrail } from "../audit/trail.ts";
import type { GatewayConfig } from "../config.ts";
import type { AccountDirectory, RecordStore, TokenVerifier } from "../contracts.ts";
import { bearer } from "../auth.ts";
import { authorizeHub } from "../hub-connector/auth.ts";
import { LoginBackoff } from "../oauth/login-backoff.ts";
import { readBody, sendHtml, sendRedirect, singleParams } from "../oauth/http-io.ts";
import { readiness } from "../readiness.ts";
import { GatewayError } from "../respond.ts";
import type { ToolSessions } from "../tool-sessions.ts";
import { adminPage, type LiveSession } from "./page.ts";
import { processUse } from "./proc.ts";
import { AdminSessions, type SignedIn } from "./session.ts";
import { signInPage } from "./sign-in-page.ts";
import { AdminUsageView } from "./usage-view.ts";

export interface AdminOptions {
  config: GatewayConfig;
  sessions: ToolSessions;
  /** The store past the lookup cache: sessions and the readiness probe read it as it is. */
  store: RecordStore;
  accounts: AccountDirectory;
  verifiers: readonly TokenVerifier[];
  publicUrl: () => string;
  audit: AuditTrail;
  droppedSpans: () => number;
  version: string;
}

const NOT_FOUND = (): GatewayError => new GatewayError("not_found", "No such route");

export class AdminPage {
  readonly #o: AdminOptions;
  readonly #sessions: AdminSessions;
  readonly #backoff = new LoginBackoff(Date.now);
  readonly #usage: AdminUsageView | undefined;
  readonly #started = Date.now();

  constructor(options: AdminOptions) {
    this.#o = options;
    this.#sessions = new AdminSessions(options.store, options.accounts, options.publicUrl);
    const dir = options.config.audit.dir;
    this.#usage = dir === undefined ? undefined : new AdminUsageView(dir);
  }

  /** Serves `/admin/{leaf}`; answers who asked, for the access log. */
  async handle(leaf: string, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    const method = req.method ?? "GET";
    if (leaf === "sign-in") {
      if (method !== "POST") throw new GatewayError("method_not_allowed", "Use POST", { allow: "POST" });
      return this.#signIn(req, res);
    }
    if (leaf !== "" && leaf !== "sessions/stop" && leaf !== "sign-out") throw NOT_FOUND();
    const who = await this.#who(req);
    if (leaf === "" && !who && (method === "GET" || method === "HEAD")) {
      sendHtml(res, 200, signInPage(`${this.#sessions.path()}/sign-in`, new URL(this.#o.publicUrl()).host));
      return undefined;
    }
    if (!who || !isAdmin(this.#o.config.admin, who)) throw NOT_FOUND();
    if (leaf === "") {
      if (method !== "GET" && method !== "HEAD") throw new GatewayError("method_not_allowed", "Use GET", { allow: "GET" });
      await this.#page(who, res);
      return who.user;
    }
    if (method !== "POST") throw new GatewayError("method_not_allowed", "Use POST", { allow: "POST" });
    const form = singleParams(await readBody(req)) ?? new Map<string, string>();
    const formName = leaf === "sign-out" ? "sign-out" : "stop";
    // A cookie is sent by the browser on its own, so its forms must prove they came from the page.
    if (who.session !== undefined && !(await this.#sessions.csrfValid(who.session, formName, form.get("csrf")))) {
      throw new GatewayError("forbidden", "The form is stale or was not sent from this page; reload it and try again");
    }
    if (leaf === "sign-out") {
      sendRedirect(res, this.#sessions.path(), who.session ? [await this.#sessions.signOut(who.session)] : []);
      return who.user;
    }
    const instance = form.get("instance") ?? "";
    if (this.#o.sessions.owned().some((s) => s.rec.instance === instance)) await this.#o.sessions.stop(instance, "stopped by an operator");
    sendRedirect(res, this.#sessions.path());
    return who.user;
  }

  /** A bearer (API or OAuth token for the hub) when the request has one, else the page's own session. */
  async #who(req: IncomingMessage): Promise<SignedIn | undefined> {
    if (bearer(req) !== null) return await authorizeHub(req, this.#o.verifiers, this.#o.publicUrl());
    return this.#sessions.current(req);
  }

  async #signIn(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    // A form posted from another site would sign the browser in to an account of that site's
    // choosing. Browsers say where a request comes from in Sec-Fetch-Site; the page's own form
    // sends Origin "null" (its referrer policy is no-referrer), so only another origin is refused.
    const site = req.headers["sec-fetch-site"];
    const origin = req.headers.origin;
    if ((site !== undefined && site !== "same-origin") || (origin !== undefined && origin !== "null" && origin !== new URL(this.#o.publicUrl()).origin)) {
      throw new GatewayError("forbidden", "Sign in from the hub's own page");
    }
    const form = singleParams(await readBody(req)) ?? new Map<string, string>();
    const username = (form.get("username") ?? "").trim();
    const password = form.get("password") ?? "";
    const action = `${this.#sessions.path()}/sign-in`;
    const hub = new URL(this.#o.publicUrl()).host;
    const wait = username ? this.#backoff.attempt(username) : 0;
    if (wait > 0) {
      sendHtml(res, 429, signInPage(action, hub, `Too many tries; wait ${wait} s.`), [], { "Retry-After": String(wait) });
      return undefined;
    }
    const account = username && password ? await this.#o.accounts.verifyPassword(username, password) : null;
    if (!account) {
      sendHtml(res, 401, signInPage(action, hub, "Wrong user name or password."));
      return undefined;
    }
    this.#backoff.succeeded(username);
    if (!isAdmin(this.#o.config.admin, account)) throw NOT_FOUND();
    sendRedirect(res, this.#sessions.path(), [await this.#sessions.signIn(account.user)]);
    return account.user;
  }

  async #page(who: SignedIn, res: ServerResponse): Promise<void> {
    const session = who.session ?? "";
    const owned = this.#o.sessions.owned();
    const [ready, live, usage] = await Promise.all([
      readiness(this.#o.store, this.#o.sessions),
      Promise.all(
        owned.map(
          async ({ rec, kind }): Promise<LiveSession> => ({
            ...(await processUse(rec.pid)),
            instance: rec.instance,
            person: rec.user,
            tool: rec.tool,
            revision: rec.revision,
            backend: kind,
            since: rec.since,
            pid: rec.pid,
            jobId: rec.jobId,
          }),
        ),
      ),
      this.#usage?.read().catch(() => undefined),
    ]);
    const note = !this.#usage
      ? "The audit trail is off (or writes to stdout): set gateway.json's audit section to a folder to see usage here."
      : "No audit lines yet.";
    const html = adminPage({
      user: who.user,
      path: this.#sessions.path(),
      csrf: { stop: await this.#sessions.csrfToken(session, "stop"), signOut: await this.#sessions.csrfToken(session, "sign-out") },
      health: {
        version: this.#o.version,
        uptimeSeconds: (Date.now() - this.#started) / 1000,
        store: ready.store,
        sessions: owned.length,
        sessionsCap: this.#o.config.limits.sessionsTotal,
        auditSink: this.#o.config.audit.sink === "file" ? "to files" : this.#o.config.audit.sink,
        auditDropped: this.#o.audit.dropped,
        spansDropped: this.#o.droppedSpans(),
      },
      sessions: live,
      ...(usage ? { usage } : { note }),
      now: Date.now(),
    });
    sendHtml(res, 200, html);
  }
}
