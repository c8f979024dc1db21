// DNS-rebinding and cross-site protection (MCP basic/transports "Security Warning": servers
// MUST validate Origin). A browser Origin must be loopback or allowed, whatever the bind
// address; requests without one (curl, SDKs, desktop hosts) pass. A server bound to
// loopback also answers only requests whose Host names a loopback or allowed host.
import type { IncomingMessage } from "node:http";

export interface HostGuardOptions {
  /** Host names (optionally with `:port`) accepted besides loopback names. */
  allowedHosts?: string[];
  /** Browser origins (`https://app.example`) accepted besides loopback ones; "*" allows any. */
  allowedOrigins?: string[];
  /** Believe `X-Forwarded-Host` (set by a reverse proxy we sit behind). */
  trustProxy?: boolean;
}

/** null when the request may pass, else why it may not. */
export type HostGuard = (req: IncomingMessage) => "host" | "origin" | null;

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith(".localhost");
}

/** "Host: a.b:80" → "a.b"; "[::1]:80" → "[::1]". */
function hostname(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.hostname : null;
  } catch {
    return null;
  }
}

/**
 * Builds the guard for a bind address (null when unknown: a handler mounted in another
 * server). The Host check applies on a loopback bind or with `allowedHosts`; the Origin
 * check always, unless `allowedOrigins` holds "*".
 */
export function hostGuard(bindHost: string | null, options: HostGuardOptions = {}): HostGuard | null {
  const hosts = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, "")));
  const checkHost = (bindHost !== null && isLoopbackHost(bindHost)) || hosts.size > 0;
  const anyOrigin = origins.has("*");
  const checkOrigin = !anyOrigin;
  if (!checkHost && !checkOrigin) return null;
  const trustProxy = options.trustProxy === true;

  const hostAllowed = (raw: string): boolean => {
    const host = raw.trim().toLowerCase();
    const name = hostname(host);
    return isLoopbackHost(name) || hosts.has(host) || hosts.has(name);
  };
  const originAllowed = (raw: string): boolean => {
    const origin = raw.trim().toLowerCase();
    if (anyOrigin || origins.has(origin)) return true;
    const name = originHost(origin);
    return name !== null && isLoopbackHost(name);
  };

  // Clients repeat one Host header; remembering the last good one keeps the hot path cheap.
  let lastGoodHost = "";
  return (req) => {
    if (checkHost) {
      const forwarded = trustProxy ? req.headers["x-forwarded-host"] : undefined;
      const host = typeof forwarded === "string" && forwarded ? forwarded.split(",")[0]! : req.headers.host;
      if (!host) return "host";
      if (host !== lastGoodHost) {
        if (!hostAllowed(host)) return "host";
        lastGoodHost = host;
      }
    }
    if (checkOrigin) {
      const origin = req.headers.origin;
      if (origin !== undefined && !originAllowed(origin)) return "origin";
    }
    return null;
  };
}
