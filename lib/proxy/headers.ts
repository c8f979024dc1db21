// Which headers a reverse proxy passes on. Hop-by-hop headers (RFC 9110 §7.6.1) belong
// to one connection and are dropped, together with every header the Connection header
// names; everything else (Mcp-Session-Id, Last-Event-ID, Cookie, ...) passes unchanged.
// Forwarding headers follow one of two policies: at the edge (the gateway) whatever the
// client claimed is dropped and replaced by what this server vouches for; behind a trusted
// front proxy (start_mcp's built-in proxy on a hub session) that proxy's view is kept and extended.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const NONE: ReadonlySet<string> = new Set();

function connectionTokens(value: string | string[] | undefined): ReadonlySet<string> {
  // Nearly every message says nothing here or only keep-alive/close, both hop-by-hop anyway.
  if (value === undefined || value === "keep-alive" || value === "close") return NONE;
  const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(
    joined
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Headers as they go out: a flat list, name then value, a repeated header once per value.
 * node:http writes such a list as it is (checking each header once), where an object goes
 * through its header bookkeeping name by name first; per request, that is measurable.
 */
export type HeaderList = string[];

/** Appends a header to a list; a list value (Set-Cookie) as one header per value. */
export function addHeader(out: HeaderList, name: string, value: string | readonly string[] | number): void {
  if (typeof value === "object") for (const v of value) out.push(name, v);
  else out.push(name, typeof value === "number" ? String(value) : value);
}

/**
 * Writes a response head from a list. node:http takes the list as it is only while nothing
 * was set on the response before; once something was (an embedding app's middleware, say),
 * it sets the list pair by pair, and a repeated header (Set-Cookie) would keep only its last
 * value. Then the first of each name replaces what was set, and the rest are appended.
 */
export function writeHeadFrom(res: ServerResponse, status: number, headers: HeaderList, statusMessage?: string): void {
  if (res.getHeaderNames().length > 0) {
    const named = new Set<string>();
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i]!.toLowerCase();
      if (named.has(name)) res.appendHeader(name, headers[i + 1]!);
      else {
        named.add(name);
        res.setHeader(name, headers[i + 1]!);
      }
    }
    headers = [];
  }
  if (statusMessage === undefined) res.writeHead(status, headers);
  else res.writeHead(status, statusMessage, headers);
}

/** The end-to-end headers of a message (request or response), without those in `drop` or starting with `dropPrefix`. */
export function endToEnd(headers: IncomingHttpHeaders, drop: ReadonlySet<string> = NONE, dropPrefix?: string): HeaderList {
  const named = connectionTokens(headers.connection);
  const out: HeaderList = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || drop.has(name) || (dropPrefix !== undefined && name.startsWith(dropPrefix))) continue;
    addHeader(out, name, value);
  }
  return out;
}

/** Headers with which proxies vouch for a caller: a client must never be able to send its own. */
const CLIENT_IDENTITY = new Set([
  "forwarded",
  "x-real-ip",
  "remote-user",
  "x-user",
  "x-client-ip",
  "true-client-ip",
  "x-original-forwarded-for",
  "cf-connecting-ip",
  "x-cluster-client-ip",
]);
const CLIENT_IDENTITY_PREFIXES = ["x-forwarded-", "x-remote-", "x-auth-request-"];

/** Whether `name` (lower case) is a header only a proxy may set: who the caller is, from where, over what. */
export function isIdentityHeader(name: string): boolean {
  if (CLIENT_IDENTITY.has(name)) return true;
  for (const prefix of CLIENT_IDENTITY_PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
}

/** What the forwarding server itself vouches for, in place of anything the client claimed. */
export interface Vouched {
  /** The authenticated person, sent as X-Forwarded-User. */
  user?: string;
  /** The client's address as this server's socket saw it, sent as X-Forwarded-For. */
  address?: string;
  /** The scheme of this server's public URL, sent as X-Forwarded-Proto. */
  proto: string;
}

/**
 * Request headers for an upstream that trusts this server as its edge: the end-to-end ones
 * except those in `drop` and every header a proxy vouches with (a client could otherwise
 * claim to be someone else), then this server's own X-Forwarded-*. One pass: it runs per request.
 */
export function vouchedRequestHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string>, vouched?: Vouched): HeaderList {
  const named = connectionTokens(headers.connection);
  const out: HeaderList = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || drop.has(name) || named.has(name) || isIdentityHeader(name)) continue;
    addHeader(out, name, value);
  }
  if (vouched) {
    if (vouched.user !== undefined) out.push("x-forwarded-user", vouched.user);
    out.push("x-forwarded-proto", vouched.proto);
    if (vouched.address) out.push("x-forwarded-for", vouched.address);
  }
  return out;
}

export interface ForwardedFacts {
  /** The connecting client's address. */
  clientIp: string | undefined;
  /** The Host the client asked for. */
  host: string | undefined;
  /** "http" or "https" as seen by the client of this proxy. */
  proto: string;
  /** Host:port of the upstream, sent as Host. */
  upstreamHost: string;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Request headers for the upstream. X-Forwarded-For gains the client's address; an
 * X-Forwarded-Host/Proto set by a proxy in front of this one is kept, since that proxy
 * saw the public address, otherwise this proxy's view is filled in.
 */
export function upstreamRequestHeaders(headers: IncomingHttpHeaders, facts: ForwardedFacts): HeaderList {
  const out = endToEnd(headers, REPLACED_BEHIND_PROXY);
  const prior = first(headers["x-forwarded-for"]);
  const ip = facts.clientIp ?? "";
  const forwardedFor = prior && ip ? `${prior}, ${ip}` : prior || ip;
  if (forwardedFor) out.push("x-forwarded-for", forwardedFor);
  out.push("x-forwarded-host", first(headers["x-forwarded-host"]) ?? facts.host ?? facts.upstreamHost);
  out.push("x-forwarded-proto", first(headers["x-forwarded-proto"]) ?? facts.proto);
  out.push("host", facts.upstreamHost);
  return out;
}

/** What upstreamRequestHeaders writes itself, from the client's values and its own. */
const REPLACED_BEHIND_PROXY: ReadonlySet<string> = new Set(["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "host"]);
