// Serving the console: `GET /` for a browser, and its assets under `console/`. Every
// response carries a strict Content-Security-Policy; the app frame gets its own, sandboxed.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { framePage } from "./frame.ts";
import { framePolicy, parseFrameCsp } from "./frame-policy.ts";
import { consolePage } from "./page.ts";
import { consoleScript } from "./script.ts";
import { consoleStyle } from "./style.ts";

/** The console page's policy: its own script, style and endpoints only; pictures and sound from results as data: URLs. */
export const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join("; ");

/** An MCP App's frame without declared domains: sandboxed (opaque origin), its inline code allowed, no network. */
export const FRAME_POLICY = framePolicy(parseFrameCsp(null));

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  policy?: string;
}

function asset(text: string, type: string, policy?: string): Asset {
  const body = Buffer.from(text, "utf8");
  // The policy is part of the tag: a frame revalidated under other domains must not keep the old one.
  const etag = `"${createHash("sha256")
    .update(body)
    .update(policy ?? "")
    .digest("base64url")
    .slice(0, 22)}"`;
  return { body, type, etag, policy };
}

const PAGE = asset(consolePage, "text/html; charset=utf-8", CONSOLE_POLICY);
const FRAME_PATH = "/console/frame.html";
const ASSETS = new Map<string, Asset>([
  ["/console/console.js", asset(consoleScript, "text/javascript; charset=utf-8")],
  ["/console/console.css", asset(consoleStyle, "text/css; charset=utf-8")],
  [FRAME_PATH, asset(framePage, "text/html; charset=utf-8", FRAME_POLICY)],
]);

/** Bytes of the page with everything it loads (the 100 KB budget). */
export const consoleWeight = PAGE.body.length + [...ASSETS.values()].reduce((n, a) => n + a.body.length, 0);

/** A browser asking for a page: Accept names text/html (not at q=0). JSON clients, curl and probes do not. */
export function wantsConsolePage(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [type, ...params] = part.split(";");
    return type!.trim().toLowerCase() === "text/html" && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p));
  });
}

function send(req: IncomingMessage, res: ServerResponse, a: Asset): void {
  const headers: Record<string, string | number> = {
    "content-type": a.type,
    "cache-control": "no-cache",
    etag: a.etag,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
  if (a.policy) headers["content-security-policy"] = a.policy;
  if (req.headers["if-none-match"] === a.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  headers["content-length"] = a.body.length;
  res.writeHead(200, headers);
  res.end(a.body);
}

/**
 * Serves `path` ("/" or "/console/…", the server's prefix already removed). The page's URLs are
 * relative to a directory, so a prefix asked for without its trailing slash is redirected to
 * it, by a relative Location that survives proxies rewriting the path in front.
 */
export function serveConsole(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (path === "/") {
    // Mounted (Express, Connect, listen's pathPrefix), only originalUrl still tells `/p` from `/p/`.
    const raw = ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/").split("?")[0]!;
    if (!raw.endsWith("/")) {
      const last = raw.slice(raw.lastIndexOf("/") + 1);
      res.writeHead(308, { location: `./${encodeURIComponent(decodeSafe(last))}/`, "content-length": 0 });
      res.end();
      return;
    }
    return send(req, res, PAGE);
  }
  const found = ASSETS.get(path);
  if (path === FRAME_PATH) return send(req, res, asset(framePage, "text/html; charset=utf-8", framePolicy(parseFrameCsp(cspQuery(req)))));
  if (found) return send(req, res, found);
  const body = JSON.stringify({ error: "Not found" });
  res.writeHead(404, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** The app frame's `csp` query parameter: the domains its resource declares (see frame-policy.ts). */
function cspQuery(req: IncomingMessage): string | null {
  const raw = req.url ?? "";
  const at = raw.indexOf("?");
  return at === -1 ? null : new URLSearchParams(raw.slice(at + 1)).get("csp");
}

function decodeSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
