// The session proxy cookie, `hubmcp-session=<instance>%3A<token>`: a bearer credential for
// one tool session, so it names the account it was issued to and when it ends. The token is
// `<expiry, base 36 seconds>_<HMAC of instance, account and expiry>`; the account and its
// groups are checked again on every request (./session-proxy.ts), so deleting the account or
// taking it out of the tool's groups ends the cookie within the lookup cache time.
import { cookieValue } from "../../http/cookies.ts";
import { hmac, safeEqual } from "../../util/secrets.ts";

export const SESSION_COOKIE = "hubmcp-session";

function mac(key: Buffer, instance: string, user: string, expires: number): string {
  return hmac(key, `weber\n${instance}\n${user}\n${expires}`);
}

/** The Cookie header value for `user` on tool session `instance`, valid for `lifetimeMs`. */
export function sessionProxyCookie(key: Buffer, instance: string, user: string, lifetimeMs: number, now = Date.now()): string {
  const expires = Math.ceil((now + lifetimeMs) / 1000);
  return `${SESSION_COOKIE}=${instance}%3A${expires.toString(36)}_${mac(key, instance, user, expires)}`;
}

/** The cookie's instance and token, as sent; undefined when there is none or it is malformed. */
export function readSessionProxyCookie(header: string | undefined): { instance: string; token: string } | undefined {
  const sent = cookieValue(header, SESSION_COOKIE);
  if (sent === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(sent);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : { instance: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

/** Whether `token` was issued for this instance and account and has not expired. */
export function tokenValid(key: Buffer, token: string, instance: string, user: string, now = Date.now()): boolean {
  const sep = token.indexOf("_");
  if (sep < 1 || sep > 12) return false;
  const expires = parseInt(token.slice(0, sep), 36);
  if (!Number.isSafeInteger(expires) || expires.toString(36) !== token.slice(0, sep)) return false;
  return safeEqual(token.slice(sep + 1), mac(key, instance, user, expires)) && expires * 1000 > now;
}

/**
 * The Set-Cookie header giving a browser `cookie` (from sessionProxyCookie) for the session
 * proxy path `path` only, as the browser sees it: no script reads it, no other path or
 * cross-site subrequest gets it, and on an https hub it never crosses plain http.
 */
export function sessionProxySetCookie(cookie: string, path: string, lifetimeMs: number, secure: boolean): string {
  return `${cookie}; Path=${path}; Max-Age=${Math.floor(lifetimeMs / 1000)}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}
