// Client ID metadata documents: a client whose `client_id` is an https URL publishes its
// metadata there. Fetching someone else's URL from inside the hub's network is an SSRF risk,
// so only public addresses are contacted (checked after DNS, and the connection pinned to the
// checked address), redirects are not followed, and the time and size are capped. Every
// answer is remembered for at least MIN_CACHE_MS, failures and `no-store` ones included, and
// lookups of a URL under way are shared, so a flood of sign-ins naming one URL fetches it once.
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { BodyError, readBody } from "../../http/body.ts";
import { isPublicAddress } from "./ip-ranges.ts";
import { redirectProblem } from "./redirects.ts";

export interface MetadataClient {
  readonly client_id: string;
  readonly client_name: string | undefined;
  readonly redirect_uris: readonly string[];
}

export interface MetadataFetchOptions {
  readonly allowPrivateAddresses: boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly now: () => number;
}

const DEFAULT_CACHE_MS = 5 * 60_000;
const MIN_CACHE_MS = 60_000;
const MAX_CACHE_MS = 24 * 3600_000;
const MAX_CACHED = 1000;

/** Whether a client_id is meant as a metadata document URL (rather than a registered id). */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://");
}

export class ClientMetadataDocuments {
  readonly #options: MetadataFetchOptions;
  readonly #cache = new Map<string, { client: MetadataClient | undefined; until: number }>();
  readonly #fetching = new Map<string, Promise<MetadataClient | undefined>>();

  constructor(options: MetadataFetchOptions) {
    this.#options = options;
  }

  /** The client the document describes, or undefined when it can't be fetched or isn't valid. */
  async resolve(clientId: string): Promise<MetadataClient | undefined> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > this.#options.now()) return cached.client;
    this.#cache.delete(clientId);
    const url = this.#checkUrl(clientId);
    if (!url) return undefined;
    let lookup = this.#fetching.get(clientId);
    if (!lookup) {
      lookup = this.#lookup(clientId, url).finally(() => this.#fetching.delete(clientId));
      this.#fetching.set(clientId, lookup);
    }
    return lookup;
  }

  async #lookup(clientId: string, url: URL): Promise<MetadataClient | undefined> {
    let fetched: { body: string; maxAgeMs: number } | undefined;
    try {
      fetched = await this.#fetch(url);
    } catch {
      fetched = undefined;
    }
    const client = fetched && parseDocument(fetched.body, clientId);
    const lifetime = client ? fetched!.maxAgeMs : MIN_CACHE_MS;
    // The oldest entry goes first; a flood of new URLs is held back by the callers' rate limits.
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(clientId, { client, until: this.#options.now() + lifetime });
    return client;
  }

  #checkUrl(clientId: string): URL | undefined {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return undefined;
    }
    const schemeOk = url.protocol === "https:" || (this.#options.allowPrivateAddresses && url.protocol === "http:");
    if (!schemeOk || url.username || url.password || url.hash || url.pathname === "/" || url.href !== clientId) return undefined;
    return url;
  }

  async #fetch(url: URL): Promise<{ body: string; maxAgeMs: number } | undefined> {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await dnsLookup(host, { all: true });
    if (addresses.length === 0) return undefined;
    if (!this.#options.allowPrivateAddresses && !addresses.every((a) => isPublicAddress(a.address))) return undefined;
    const pinned = addresses[0]!;
    // Connect to the address just checked, so a second DNS answer can't swap in a private one.
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (err: null, list: Array<{ address: string; family: number }>) => void)(null, [pinned]);
      } else callback(null, pinned.address, pinned.family);
    };
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return await new Promise((resolve, reject) => {
      const req = send(url, { method: "GET", lookup, headers: { Accept: "application/json" }, timeout: this.#options.timeoutMs });
      const timer = setTimeout(() => req.destroy(new Error("timeout")), this.#options.timeoutMs);
      req.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.once("timeout", () => req.destroy(new Error("timeout")));
      req.once("response", (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          clearTimeout(timer);
          res.resume();
          req.destroy();
          resolve(undefined);
          return;
        }
        readBody(res, this.#options.maxBytes, { overflow: "destroy" }).then(
          (body) => {
            clearTimeout(timer);
            resolve({ body: body.toString("utf8"), maxAgeMs: cacheLifetime(res.headers["cache-control"]) });
          },
          (err: unknown) => {
            clearTimeout(timer);
            if (!(err instanceof BodyError) || err.code !== "HUBMCP_BODY_TOO_LARGE") return reject(err);
            req.destroy();
            resolve(undefined);
          },
        );
      });
      req.end();
    });
  }
}

/**
 * How long a document is kept: as its Cache-Control says, between a minute and a day. Even a
 * `no-store` document is kept the minimum: fetching it again for every request would let
 * anyone make the hub fetch a URL as often as they like.
 */
export function cacheLifetime(header: string | undefined): number {
  if (!header) return DEFAULT_CACHE_MS;
  if (/\b(no-store|no-cache)\b/i.test(header)) return MIN_CACHE_MS;
  const maxAge = /\bmax-age\s*=\s*(\d+)/i.exec(header);
  if (!maxAge) return DEFAULT_CACHE_MS;
  return Math.max(MIN_CACHE_MS, Math.min(Number(maxAge[1]) * 1000, MAX_CACHE_MS));
}

export function parseDocument(text: string, clientId: string): MetadataClient | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return undefined;
  const fields = doc as Record<string, unknown>;
  if (fields.client_id !== clientId) return undefined;
  const redirects = fields.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > 20) return undefined;
  if (redirects.some((uri) => redirectProblem(uri) !== undefined)) return undefined;
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") return undefined;
  const name = typeof fields.client_name === "string" ? fields.client_name.slice(0, 100) : undefined;
  return { client_id: clientId, client_name: name, redirect_uris: redirects as string[] };
}
