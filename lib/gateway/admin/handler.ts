// `{publicUrl}/admin`: the operator's page, for members of gateway.json's admin groups only.
// It rests on the authorization server's browser session, as the account page does: whoever
// signed in there (password, the hub's OpenID provider, a front proxy) is who looks, nobody
// signed in gets the same sign-in pages, which end back here. Someone signed in but not an
// admin gets a 403 page that shows nothing of anyone. Forms (stop a tool session, sign out)
// carry the session's CSRF token for this page; groups are read past the lookup cache on
// every request, so an operator taken out of the admin group loses the page at once.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isAdmin } from "../config/admin-settings.ts";
import type { AuditTrail } from "../audit/trail.ts";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { AccountDirectory, RecordStore, SignedInPage } from "../contracts/interfaces.ts";
import { readBody, sendHtml, sendRedirect, singleParams } from "../oauth/http-io.ts";
import { errorPage } from "../oauth/pages.ts";
import { readiness } from "../operations/readiness.ts";
import type { ToolSessions } from "../tool-sessions/tool-sessions.ts";
import { adminPage, type LiveToolSession } from "./page.ts";
import { processUse } from "./proc.ts";
import { AdminUsageView } from "./usage-view.ts";

export interface AdminOptions {
  config: GatewayConfig;
  host: SignedInPage;
  sessions: ToolSessions;
  /** The store past the lookup cache: the readiness probe reads it as it is. */
  store: RecordStore;
  /** Past the lookup cache too: group changes apply at the next request. */
  accounts: AccountDirectory;
  audit: AuditTrail;
  droppedSpans: () => number;
  version: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, query: string) => Promise<void>;

/** Where the page's forms post and its redirects lead: relative, so any host name and path prefix the browser used works. */
const SELF = "admin";

function fail(res: ServerResponse, status: number, title: string, message: string, headers: Record<string, string> = {}): void {
  sendHtml(res, status, errorPage(title, message), [], headers);
}

export function adminPageHandlers(o: AdminOptions): { GET: Handler; POST: Handler } {
  const started = Date.now();
  const dir = o.config.audit.dir;
  const usageView = dir === undefined ? undefined : new AdminUsageView(dir);

  /** The limit, then the person and whether they are an admin: undefined when the answer has been sent. */
  const begin = async (req: IncomingMessage, res: ServerResponse): Promise<{ user: string | null; admin: boolean } | undefined> => {
    const wait = await o.host.hit(req);
    if (wait > 0) {
      req.resume();
      fail(res, 429, "Too many requests", "Wait a minute and open the page again.", { "Retry-After": String(wait) });
      return undefined;
    }
    const user = (await o.host.user(req)) ?? null;
    const groups = user === null ? null : await o.accounts.groupsOf(user);
    return { user, admin: groups !== null && isAdmin(o.config.admin, { groups }) };
  };

  const refuse = (res: ServerResponse): void => fail(res, 403, "Not allowed", "This page is for the hub's operators.");

  const show = async (req: IncomingMessage, res: ServerResponse, user: string): Promise<void> => {
    const owned = o.sessions.owned();
    const [ready, live, usage, csrf] = await Promise.all([
      readiness(o.store, o.sessions),
      Promise.all(
        owned.map(
          async ({ rec, kind }): Promise<LiveToolSession> => ({
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
      usageView?.read().catch(() => undefined),
      o.host.csrfToken(req, user),
    ]);
    const note = !usageView
      ? "The audit trail is off (or writes to stdout): set gateway.json's audit section to a folder to see usage here."
      : "No audit lines yet.";
    const html = adminPage({
      user,
      action: SELF,
      csrf: csrf.token,
      health: {
        version: o.version,
        uptimeSeconds: (Date.now() - started) / 1000,
        store: ready.store,
        sessions: owned.length,
        sessionsCap: o.config.limits.sessionsTotal,
        auditSink: o.config.audit.sink === "file" ? "to files" : o.config.audit.sink,
        auditDropped: o.audit.dropped,
        spansDropped: o.droppedSpans(),
      },
      sessions: live,
      ...(usage ? { usage } : { note }),
      now: Date.now(),
    });
    sendHtml(res, 200, html, csrf.setCookie);
  };

  const GET: Handler = async (req, res) => {
    const who = await begin(req, res);
    if (!who) return;
    if (who.user === null) return o.host.signIn(req, res);
    if (!who.admin) return refuse(res);
    await show(req, res, who.user);
  };

  const POST: Handler = async (req, res) => {
    const who = await begin(req, res);
    if (!who) return;
    const form = singleParams(await readBody(req));
    if (who.user === null) return fail(res, 401, "Signed out", "Your sign-in has ended. Open the page again to sign in.");
    // A cookie is sent by the browser on its own, so its forms must prove they came from the page.
    if (!form || !(await o.host.csrfValid(req, who.user, form.get("csrf")))) return fail(res, 403, "Form expired", "Reload the page and try again.");
    if (!who.admin) return refuse(res);
    switch (form.get("action")) {
      case "stop-session": {
        const instance = form.get("instance") ?? "";
        // One that is gone already (stopped, or another replica's) just leads back to the page.
        if (o.sessions.owned().some((s) => s.rec.instance === instance)) await o.sessions.stop(instance, "stopped by an operator", who.user);
        return sendRedirect(res, SELF);
      }
      case "sign-out":
        return sendRedirect(res, SELF, await o.host.signOut(req));
      default:
        return fail(res, 400, "Unknown action", "Reload the page and try again.");
    }
  };

  return { GET, POST };
}
