// DNS-rebinding and cross-site protection (MCP basic/transports "Security Warning": servers
// MUST validate Origin). A browser Origin must be loopback or allowed, whatever the bind
// address; requests without one (curl, SDKs, desktop hosts) pass. On every bind the Host
// must name this machine (loopback, its own addresses, its host name) or an allowed host:
// a rebound name (evil.example resolving to this machine) is refused, so a web page can
// neither drive the server nor read its streams.
import type { IncomingMessage } from "node:http";
import { hostname as machineName, networkInterfaces } from "node:os";
import { isBrowserLoopbackHost } from "./loopback.ts";
import { hostName } from "./host-syntax.ts";

export interface HostGuardOptions {
  /** Host names (optionally with `:port`) accepted besides this machine's names; "*" turns the Host check off. */
  allowedHosts?: string[];
  /** Browser origins (`https://app.example`) accepted besides loopback ones; "*" allows any. */
  allowedOrigins?: string[];
  /** Believe `X-Forwarded-Host` (set by a reverse proxy we sit behind). */
  trustProxy?: boolean;
}

/** null when the request may pass, else why it may not. */
export type HostGuard = (req: IncomingMessage) => "host" | "origin" | null;

function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.hostname : null;
  } catch {
    return null;
  }
}

/** This machine's interface addresses, as they appear in a Host header ("10.0.0.5", "[fe80::1]"). */
function ownAddresses(): Set<string> {
  const names = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) names.add(a.family === "IPv6" ? `[${a.address.toLowerCase()}]` : a.address);
  }
  return names;
}

/** Interfaces come and go (DHCP, VPNs, containers): re-read them on a miss, at most this often. */
const INTERFACES_REREAD_MS = 5_000;

/**
 * Whether a Host header names this server: a loopback name, an address of this machine,
 * its host name, the wildcard it may be bound to, the bind address, or one of `allowed`
 * (a bare name matches any port; `name:port` only that port).
 */
export function hostAllowList(allowed: readonly string[], bindHost: string | null = null): (host: string) => boolean {
  const hosts = new Set(allowed.map((h) => h.toLowerCase()));
  const fixed = new Set(["0.0.0.0", "[::]", machineName().toLowerCase()]);
  if (bindHost) fixed.add(bindHost.includes(":") && !bindHost.startsWith("[") ? `[${bindHost.toLowerCase()}]` : bindHost.toLowerCase());
  let own = ownAddresses();
  let readAt = Date.now();
  // Clients repeat one Host header; remembering the last good one keeps the hot path cheap.
  let lastGood = "";
  return (raw) => {
    if (raw === lastGood) return true;
    if (!allowedNow(raw)) return false;
    lastGood = raw;
    return true;
  };

  function allowedNow(raw: string): boolean {
    const host = raw.trim().toLowerCase();
    const name = hostName(host);
    if (isBrowserLoopbackHost(name) || hosts.has(host) || hosts.has(name) || fixed.has(name) || own.has(name)) return true;
    if (Date.now() - readAt < INTERFACES_REREAD_MS) return false;
    own = ownAddresses();
    readAt = Date.now();
    // The remembered host may have been one of the addresses just gone: it must pass again.
    lastGood = "";
    return own.has(name);
  }
}

/**
 * Builds the guard for a bind address (null when unknown: a handler mounted in another
 * server). The Host check applies on every bind unless `allowedHosts` holds "*"; the hosts
 * of `allowedOrigins` count as allowed hosts (a hub's proxy origin). The Origin check
 * applies unless `allowedOrigins` holds "*".
 */
export function hostGuard(bindHost: string | null, options: HostGuardOptions = {}): HostGuard | null {
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, "")));
  const allowedHosts = options.allowedHosts ?? [];
  const checkHost = !allowedHosts.includes("*");
  const anyOrigin = origins.has("*");
  const checkOrigin = !anyOrigin;
  if (!checkHost && !checkOrigin) return null;
  const trustProxy = options.trustProxy === true;
  const originHosts = [...origins].flatMap((o) => (o === "*" ? [] : [originHost(o)].filter((h): h is string => h !== null)));
  const hostAllowed = hostAllowList([...allowedHosts, ...originHosts], bindHost);
  const originAllowed = (raw: string): boolean => {
    const origin = raw.trim().toLowerCase();
    if (anyOrigin || origins.has(origin)) return true;
    const name = originHost(origin);
    return name !== null && isBrowserLoopbackHost(name);
  };

  return (req) => {
    if (checkHost) {
      const forwarded = req.headers["x-forwarded-host"];
      const host = trustProxy && typeof forwarded === "string" && forwarded ? forwarded.split(",")[0]! : req.headers.host;
      if (!host) return "host";
      if (!hostAllowed(host)) return "host";
      // Not believed, but not ignored either: a proxy in front that rewrites Host to a loopback
      // name passes the rebound name here, and a client cannot take out what the proxy added.
      if (!trustProxy && typeof forwarded === "string" && !forwarded.split(",").every((h) => hostAllowed(h))) return "host";
    }
    if (checkOrigin) {
      const origin = req.headers.origin;
      if (origin !== undefined && !originAllowed(origin)) return "origin";
    }
    return null;
  };
}
