// `{publicUrl}/account`: a person's own API tokens, connected apps and tool sessions. It is
// served under the authorization server's path, where the sign-in cookie reaches it, and
// rests on that server's browser session: whoever signed in (password, or any other way the
// sign-in page offers) sees their own page. Every change is a CSRF-checked POST answered
// with a redirect (POST-redirect-GET), except a new token, shown once on the POST's own
// answer: the token is never stored anywhere to show it later. An id that is not the
// person's own (another's, or none) is a 404, whether or not it exists. Token changes are
// audit lines (person, token id and name, expiry; never the token).
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApiTokens, tokenName } from "../identity/api-tokens.ts";
import type { AuditEntry } from "../audit/entry.ts";
import type { AccountHost } from "../contracts/interfaces.ts";
import { readBody, sendHtml, sendRedirect, singleParams } from "../oauth/http-io.ts";
import { errorPage } from "../oauth/pages.ts";
import type { ToolSessions } from "../tool-sessions/tool-sessions.ts";
import { accountPage, type AccountView } from "./view.ts";

export interface AccountPageOptions {
  readonly host: AccountHost;
  readonly tokens: ApiTokens;
  readonly sessions: ToolSessions;
  readonly publicUrl: () => string;
  /** Where token changes are told: the gateway's audit trail. */
  readonly audit: (entry: AuditEntry) => void;
}

/** Lifetimes a person may give their own tokens, in days: self-made tokens always expire. */
const LIFETIMES = [30, 7, 90, 365];
const DAY_MS = 86_400_000;

/** What a redirect after a change says; only these names, so nothing from the request is echoed. */
const NOTICES: Record<string, string> = {
  "token-revoked": "The token is revoked.",
  "app-revoked": "The application is signed out.",
  "session-stopped": "The tool session is stopped.",
};

type Handler = (req: IncomingMessage, res: ServerResponse, query: string) => Promise<void>;

function fail(res: ServerResponse, status: number, title: string, message: string, headers: Record<string, string> = {}): void {
  sendHtml(res, status, errorPage(title, message), [], headers);
}

export function accountPageHandlers(options: AccountPageOptions): { GET: Handler; POST: Handler } {
  const { host, tokens, sessions } = options;

  const show = async (req: IncomingMessage, res: ServerResponse, user: string, status: number, extra: Partial<AccountView> = {}): Promise<void> => {
    const [mine, apps, running, csrf] = await Promise.all([tokens.listOf(user), host.grantsOf(user), sessions.of(user), host.csrfToken(req, user)]);
    const view: AccountView = {
      user,
      hub: new URL(options.publicUrl()).host,
      publicUrl: options.publicUrl(),
      csrf: csrf.token,
      tokens: mine,
      apps,
      sessions: running.map(({ instance, tool, revision, since }) => ({ instance, tool, revision, since })),
      lifetimes: LIFETIMES,
      ...extra,
    };
    sendHtml(res, status, accountPage(view), csrf.setCookie);
  };

  /** The limit, then the person: undefined when the answer has been sent. */
  const begin = async (req: IncomingMessage, res: ServerResponse): Promise<string | null | undefined> => {
    const wait = await host.hit(req);
    if (wait > 0) {
      req.resume();
      fail(res, 429, "Too many requests", "Wait a minute and open the page again.", { "Retry-After": String(wait) });
      return undefined;
    }
    return (await host.user(req)) ?? null;
  };

  const GET: Handler = async (req, res, query) => {
    const user = await begin(req, res);
    if (user === undefined) return;
    if (user === null) return host.signIn(req, res);
    const done = singleParams(query)?.get("done");
    const notice = done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
    await show(req, res, user, 200, notice ? { notice } : {});
  };

  const POST: Handler = async (req, res) => {
    const user = await begin(req, res);
    if (user === undefined) return;
    const form = singleParams(await readBody(req));
    if (user === null) return fail(res, 401, "Signed out", "Your sign-in has ended. Open your account page again to sign in.");
    if (!form || !(await host.csrfValid(req, user, form.get("csrf")))) return fail(res, 403, "Form expired", "Reload the page and try again.");
    const id = form.get("id") ?? "";
    const changed = (ok: boolean, done: string): void =>
      ok ? sendRedirect(res, `account?done=${done}`) : fail(res, 404, "Not found", "You have nothing with that id. Reload the page to see what you have.");
    switch (form.get("action")) {
      case "create-token": {
        const name = tokenName(form.get("name") ?? "");
        const days = Number(form.get("expires"));
        if (name === null) return show(req, res, user, 400, { error: "Give the token a name of 1 to 64 characters." });
        if (!LIFETIMES.includes(days)) return show(req, res, user, 400, { error: "Choose one of the offered lifetimes." });
        const expiresAt = new Date(Date.now() + days * DAY_MS);
        const made = await tokens.create(user, { name, expiresAt });
        if (!made) return fail(res, 401, "Signed out", "Your account is gone.");
        options.audit({ event: "token.create", person: user, tokenId: made.id, name, expiresAt: expiresAt.toISOString(), outcome: "ok" });
        return show(req, res, user, 200, { created: { token: made.token, name } });
      }
      case "revoke-token": {
        // Read first: the line names the token as its person knew it.
        const token = (await tokens.listOf(user)).find((t) => t.id === id);
        const revoked = token !== undefined && (await tokens.revokeOf(user, id));
        if (revoked) options.audit({ event: "token.revoke", person: user, tokenId: id, name: token.name, expiresAt: token.expiresAt, outcome: "ok" });
        return changed(revoked, "token-revoked");
      }
      case "revoke-app":
        return changed(await host.revokeGrant(user, id), "app-revoked");
      case "stop-session":
        return changed(await sessions.endOf(user, id), "session-stopped");
      default:
        return fail(res, 400, "Unknown action", "Reload the page and try again.");
    }
  };

  return { GET, POST };
}
