// The authorization server's only contact with node:http: reading small bodies and writing
// JSON, HTML and redirects with the headers every endpoint needs (bodies, JSON and CORS
// through the HTTP kit in lib/http).
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody as readKitBody } from "../../http/body.ts";
import { cookieValue as cookieOf } from "../../http/cookies.ts";
import { CORS } from "../../http/cors.ts";
import { jsonWriter } from "../../http/respond.ts";
import { OAUTH_ERRORS, oauthErrorOf, wireHeaders, wireStatus, type OAuthAnswered, type OAuthCode } from "../../util/errors.ts";

export const MAX_BODY_BYTES = 64 * 1024;

/** A small form or JSON body as text; rejects with the HTTP kit's BodyError. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return (await readKitBody(req, limit)).toString("utf8");
}

/**
 * Form parameters (or a query string) as a map; a parameter sent twice is an error
 * (RFC 6749 section 3.1), answered as undefined.
 */
export function singleParams(text: string): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (out.has(key)) return undefined;
    out.set(key, value);
  }
  return out;
}

/** JSON answers of the OAuth endpoints: tokens are never cached (RFC 6749 section 5.1). */
export const sendJson = jsonWriter({ cors: CORS.oauth, headers: { "cache-control": "no-store", pragma: "no-cache" }, started: "destroy" });

/** An OAuth error under the status its code is declared with. */
export function sendOAuthError(res: ServerResponse, error: OAuthCode, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, OAUTH_ERRORS[error], { error, error_description: description }, headers);
}

/** One of the error model's failures in its RFC 6749 form, with the status and headers declared for it. */
export function sendOAuthFailure(res: ServerResponse, code: OAuthAnswered, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, wireStatus(code), { error: oauthErrorOf(code), error_description: description }, { ...wireHeaders(code), ...headers });
}

/** Headers for our own HTML: nothing external, no framing (clickjacking), no referrer leaks. */
const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

export function sendHtml(res: ServerResponse, status: number, html: string, cookies: readonly string[] = [], headers: Record<string, string> = {}): void {
  if (cookies.length > 0) res.setHeader("Set-Cookie", [...cookies]);
  res.writeHead(status, { ...PAGE_HEADERS, ...headers, "Content-Length": Buffer.byteLength(html) });
  res.end(html);
}

export function sendRedirect(res: ServerResponse, location: string, cookies: readonly string[] = []): void {
  if (cookies.length > 0) res.setHeader("Set-Cookie", [...cookies]);
  res.writeHead(303, { Location: location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "Content-Length": 0 });
  res.end();
}

export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  return cookieOf(req.headers.cookie, name);
}
