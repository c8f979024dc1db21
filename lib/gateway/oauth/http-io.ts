// The authorization server's only contact with node:http: reading small bodies and writing
// JSON, HTML and redirects with the headers every endpoint needs.
import type { IncomingMessage, ServerResponse } from "node:http";

export const MAX_BODY_BYTES = 64 * 1024;

export class BodyError extends Error {
  readonly code: "HUBMCP_BODY_TOO_LARGE" | "HUBMCP_BODY_UNREADABLE";
  constructor(code: "HUBMCP_BODY_TOO_LARGE" | "HUBMCP_BODY_UNREADABLE") {
    super(code === "HUBMCP_BODY_TOO_LARGE" ? "request body too large" : "request body unreadable");
    this.code = code;
  }
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new BodyError("HUBMCP_BODY_TOO_LARGE");
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof BodyError) throw err;
    throw new BodyError("HUBMCP_BODY_UNREADABLE");
  }
  return Buffer.concat(chunks).toString("utf8");
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

/** CORS for browser clients (MCP Inspector): public endpoints, so `*` and never credentials. */
export function setCors(res: ServerResponse): void {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id");
}

export function answerPreflight(res: ServerResponse): void {
  setCors(res);
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  res.setHeader(
    "Access-Control-Allow-Headers",
    "Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
  );
  res.setHeader("Access-Control-Max-Age", "600");
  res.writeHead(204).end();
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    Pragma: "no-cache",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendOAuthError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error, error_description: description }, headers);
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
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
