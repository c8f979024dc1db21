// The console link the gateway gives (`{publicUrl}/console?ticket=…`) and the ticket in it:
// `<instance>.<expiry>.<nonce>.<mac>`, good for one opening within a minute. It travels in a URL (history, a proxy's log, a pasted message), so it
// names only the tool session, which the session proxy path names anyway; the person, tool,
// revision and path it is for are bound by the HMAC and checked against the running tool
// session's record, so a ticket is worthless for anyone else's session. Single use is the
// store's business (./console-link.ts); this file only signs and reads.
import { hmac, randomToken, safeEqual } from "../oauth/crypto.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";

/** How long a console link can be opened after the gateway gave it. */
export const CONSOLE_TICKET_LIFETIME_MS = 60_000;

/** What a ticket is good for: one person's tool session and its session proxy path. */
export type TicketBinding = Pick<ToolSessionRecord, "user" | "tool" | "revision" | "instance"> & { readonly weberPrefix: string };

/** A ticket as sent, read for its shape only: nothing in it is trusted until `ticketSigned`. */
export interface SentTicket {
  readonly instance: string;
  /** Seconds since the epoch. */
  readonly expires: number;
  readonly nonce: string;
  readonly mac: string;
}

const SHAPE = /^([0-9a-f]{32})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(key: Buffer, b: TicketBinding, expires: number, nonce: string): string {
  // Domain-separated from the session proxy cookie's MAC under the same key (its input starts "weber").
  return hmac(key, JSON.stringify(["console-ticket", b.user, b.tool, b.revision, b.instance, b.weberPrefix, expires, nonce]));
}

export function mintConsoleTicket(key: Buffer, binding: TicketBinding, now = Date.now()): string {
  const expires = Math.ceil((now + CONSOLE_TICKET_LIFETIME_MS) / 1000);
  const nonce = randomToken(16);
  return `${binding.instance}.${expires.toString(36)}.${nonce}.${mac(key, binding, expires, nonce)}`;
}

/** The ticket's parts, or undefined when it is not shaped like one. */
export function readConsoleTicket(text: string | null): SentTicket | undefined {
  const m = SHAPE.exec(text ?? "");
  if (!m) return undefined;
  const expires = parseInt(m[2]!, 36);
  // One spelling per expiry, so a ticket has exactly one text.
  if (expires.toString(36) !== m[2]) return undefined;
  return { instance: m[1]!, expires, nonce: m[3]!, mac: m[4]! };
}

/** Whether the gateway signed this ticket for exactly this binding (constant time). */
export function ticketSigned(key: Buffer, ticket: SentTicket, binding: TicketBinding): boolean {
  return safeEqual(ticket.mac, mac(key, binding, ticket.expires, ticket.nonce));
}

export function ticketExpired(ticket: SentTicket, now = Date.now()): boolean {
  return ticket.expires * 1000 <= now;
}

/** What the bootstrap answer (`GET /api/mcp/{tool}`) says about the tool console. */
export type ConsoleLinkFields = { console_url: string; console_url_expires_in: number } | { console_url: null; console_unavailable: string };

const NO_CONSOLE = "This revision has no console through the gateway: only app revisions with process isolation have one (a session proxy path of their own)";

/**
 * A link that opens `rec`'s console for `user` once, within a minute; null with the reason for
 * a tool session that has no session proxy path (url, command, Slurm or shared revisions).
 */
export function consoleLinkFields(key: Buffer, publicUrl: string, user: string, rec: ToolSessionRecord): ConsoleLinkFields {
  if (!rec.weberPrefix) return { console_url: null, console_unavailable: NO_CONSOLE };
  const ticket = mintConsoleTicket(key, { user, tool: rec.tool, revision: rec.revision, instance: rec.instance, weberPrefix: rec.weberPrefix });
  return { console_url: `${publicUrl}/console?ticket=${ticket}`, console_url_expires_in: CONSOLE_TICKET_LIFETIME_MS / 1000 };
}
