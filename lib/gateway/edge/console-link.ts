// `GET /console?ticket=…`: a console link (./console-ticket.ts) opened in a browser. The
// ticket is exchanged, once, for the session proxy cookie, set for that tool session's path
// only, and the browser goes there (303) to its own console: no cookie copied by hand. The
// redirect goes to a path built from the tool session's record, never from the request, so
// the route cannot send a browser elsewhere; the ticket is in the query, which the access log
// leaves out, and `Referrer-Policy: no-referrer` keeps the link out of the next request.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecordStore } from "../contracts/interfaces.ts";
import { readConsoleTicket, ticketExpired, ticketSigned } from "./console-ticket.ts";
import { sendHtml, sendRedirect } from "../oauth/http-io.ts";
import { errorPage } from "../oauth/pages.ts";
import { GatewayError, knownFailure } from "../contracts/respond.ts";
import { queryOf } from "../contracts/routes.ts";
import { checkAccountNow } from "./session-proxy.ts";
import { sessionProxyCookie, sessionProxySetCookie } from "./session-proxy-cookie.ts";
import type { GatewayContext } from "../calls/tool-call.ts";

/** Nonces of tickets already opened. */
export const CONSOLE_LINK_USES = "console-link-uses";
/** Between sweeps of spent tickets' records, per process. */
const SWEEP_EVERY_MS = 10 * 60_000;
/** A use is remembered this long past its ticket's expiry, more than replicas' clocks may disagree. */
const CLOCK_SKEW_MS = 5 * 60_000;

const ASK_AGAIN = "ask the gateway for a new one (GET /api/mcp/{tool} with your token)";

/** Tickets opened, in the store every replica shares, so a ticket opens once across all of them. */
export class ConsoleLinkUses {
  #lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: RecordStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this is the ticket's first opening (the store's create: first writer wins). */
  async first(nonce: string, expiresMs: number): Promise<boolean> {
    const first = await this.store.create(CONSOLE_LINK_USES, nonce, { expires: expiresMs });
    if (this.now() - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = this.now();
      void this.sweep().catch(() => undefined);
    }
    return first;
  }

  /**
   * Forgets the uses of tickets that expired a while ago; answers how many. Safe because an
   * expired ticket is refused before its use is looked up.
   */
  async sweep(): Promise<number> {
    const now = this.now();
    let removed = 0;
    for (const { id, value } of await this.store.list<{ expires?: unknown }>(CONSOLE_LINK_USES)) {
      if (typeof value.expires === "number" && value.expires + CLOCK_SKEW_MS > now) continue;
      await this.store.delete(CONSOLE_LINK_USES, id);
      removed += 1;
    }
    return removed;
  }
}

/** Whose console a link opened, for the access log and metrics. */
export interface Opened {
  readonly user: string;
  readonly tool: string;
}

const invalid = (): GatewayError => new GatewayError("console_link_invalid", `This console link is not valid: ${ASK_AGAIN}`);

/** The cookie and the path to redirect to, once the ticket is checked and spent; throws a GatewayError otherwise. */
async function exchange(ctx: GatewayContext, uses: ConsoleLinkUses, req: IncomingMessage): Promise<Opened & { path: string; cookie: string }> {
  if (req.method !== "GET") throw new GatewayError("method_not_allowed", "Open the console link with GET", { allow: "GET" });
  const ticket = readConsoleTicket(queryOf(req.url).get("ticket"));
  if (!ticket) throw invalid();
  const rec = await ctx.sessions.byInstance(ticket.instance);
  if (!rec?.weberPrefix) throw new GatewayError("unknown_session", `The tool session this console link was for is no longer running: ${ASK_AGAIN}`);
  // The record says whose session this is: a ticket signed for anyone or anything else fails here.
  const binding = { user: rec.user, tool: rec.tool, revision: rec.revision, instance: rec.instance, weberPrefix: rec.weberPrefix };
  if (!ticketSigned(ctx.cookieKey, ticket, binding)) throw invalid();
  if (ticketExpired(ticket)) throw new GatewayError("console_link_expired", `This console link has expired (a link lasts a minute): ${ASK_AGAIN}`);
  await checkAccountNow(ctx, rec, () => new GatewayError("unauthorized", "The account this console link was for no longer exists"));
  // Spent only once everything else holds: whoever merely saw a link that fails cannot burn it.
  if (!(await uses.first(ticket.nonce, ticket.expires * 1000))) throw new GatewayError("console_link_used", `This console link was already used: ${ASK_AGAIN}`);
  const path = `${new URL(ctx.publicUrl).pathname.replace(/\/$/, "")}${rec.weberPrefix}`;
  const lifetime = ctx.config.limits.proxyCookieMs;
  const cookie = sessionProxySetCookie(sessionProxyCookie(ctx.cookieKey, rec.instance, rec.user, lifetime), path, lifetime, ctx.publicUrl.startsWith("https:"));
  return { user: rec.user, tool: rec.tool, path, cookie };
}

/**
 * Answers a console link: 303 to the console with the session proxy cookie, or a page that
 * says why not (the link is opened in a browser); answers whose console it opened, if any.
 */
export async function openConsoleLink(ctx: GatewayContext, uses: ConsoleLinkUses, req: IncomingMessage, res: ServerResponse): Promise<Opened | undefined> {
  let opened;
  try {
    opened = await exchange(ctx, uses, req);
  } catch (err) {
    const known = knownFailure(err);
    if (!known) throw err;
    sendHtml(res, known.status, errorPage("Cannot open the tool console", known.message), [], known.headers);
    return undefined;
  }
  sendRedirect(res, `${opened.path}/`, [opened.cookie]);
  return { user: opened.user, tool: opened.tool };
}
