// Configuration of the authorization server, with the defaults filled in once.
import type { IncomingMessage } from "node:http";
import type { AccountDirectory, RecordStore, TokenVerifier } from "../contracts/interfaces.ts";
import { silentLogger, type Logger } from "../../util/logger.ts";
import { DEFAULT_REDIRECT_ALLOWLIST } from "./redirects.ts";
import type { AssertionIssuer, FrontEndSettings, IdentitySettings } from "./identity-settings.ts";
import { FrontEndTrust } from "./front-end.ts";

export interface OAuthServerOptions {
  /**
   * The hub's public origin (and path prefix, if any), e.g. `https://hub.example.org`; a
   * function when it is only known once the gateway listens.
   */
  publicUrl: string | (() => string);
  store: RecordStore;
  accounts: AccountDirectory;
  /** Dynamic client registration (RFC 7591). */
  registration?: {
    /** Redirect URL prefixes that register without a token; loopback always does. */
    allowlist?: readonly string[];
    /** Groups whose members may register clients with other redirects. Default: none (refused). */
    groups?: readonly string[];
    /** Checks the bearer token of such a registration (the gateway's API-token verifier). */
    verifier?: TokenVerifier;
    /** Registrations per source IP per window. Default 20 per 10 minutes. */
    maxPerWindow?: number;
    windowMs?: number;
  };
  /** Client ID metadata documents (https `client_id` URLs). */
  clientMetadata?: {
    /** Fetch from private and loopback addresses and over http: for specs only. */
    allowPrivateAddresses?: boolean;
    timeoutMs?: number;
    maxBytes?: number;
  };
  /**
   * Header set by a front proxy that has already authenticated the user (e.g. `x-forwarded-user`).
   * Only set it when every request reaches the hub through that proxy.
   */
  trustedUserHeader?: string;
  /** Sign-in through the hub's OpenID provider, with the client secret already read from its file. */
  identity?: IdentitySettings & { readonly clientSecret: string };
  /** The person from the hub's front end's headers, with the shared secret already read. */
  frontEnd?: FrontEndSettings & { readonly secret: string };
  /** IdPs whose identity assertions (ID-JAG) the token endpoint exchanges for access tokens. */
  assertionIssuers?: readonly AssertionIssuer[];
  /** Whether these groups may use the resource (undefined = the whole hub); checked at consent and refresh. */
  resourceAccess?: (resource: string | undefined, groups: readonly string[]) => boolean | Promise<boolean>;
  /** The source address used for rate limits; default the socket's remote address. */
  clientIp?: (req: IncomingMessage) => string;
  /** Milliseconds since the epoch; injectable for expiry specs. */
  now?: () => number;
  logger?: Logger;
  /** Count registration and sign-in limits in `store`, shared by replicas on it (a database store). */
  sharedLimits?: boolean;
}

export interface OAuthConfig {
  readonly publicUrl: string;
  readonly issuer: string;
  readonly secureCookies: boolean;
  readonly store: RecordStore;
  readonly accounts: AccountDirectory;
  readonly allowlist: readonly string[];
  readonly registrationGroups: readonly string[];
  readonly registrationVerifier: TokenVerifier | undefined;
  readonly maxRegistrations: number;
  readonly registrationWindowMs: number;
  readonly allowPrivateMetadata: boolean;
  readonly metadataTimeoutMs: number;
  readonly metadataMaxBytes: number;
  readonly trustedUserHeader: string | undefined;
  readonly identity: (IdentitySettings & { readonly clientSecret: string }) | undefined;
  readonly frontEnd: FrontEndTrust | undefined;
  readonly assertionIssuers: readonly AssertionIssuer[];
  /** Whether the store's passwords work on the sign-in page (off only by `identity.passwords`). */
  readonly passwords: boolean;
  readonly resourceAccess: (resource: string | undefined, groups: readonly string[]) => boolean | Promise<boolean>;
  readonly clientIp: (req: IncomingMessage) => string;
  readonly now: () => number;
  readonly logger: Logger;
  readonly sharedLimits: boolean;
}

export const ACCESS_TOKEN_SECONDS = 3600;
export const CODE_LIFETIME_MS = 2 * 60_000;
export const REQUEST_LIFETIME_MS = 15 * 60_000;
export const SESSION_LIFETIME_MS = 12 * 3600_000;
export const REFRESH_LIFETIME_MS = 30 * 24 * 3600_000;
export const UNUSED_CLIENT_LIFETIME_MS = 24 * 3600_000;

function normalPublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError("publicUrl must be an absolute http(s) URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError("publicUrl must be an absolute http(s) URL");
  return url.href.replace(/\/+$/, "");
}

export function resolveOptions(options: OAuthServerOptions): OAuthConfig {
  const source = options.publicUrl;
  let last: { raw: string; normal: string } | undefined;
  const publicUrl = (): string => {
    const raw = typeof source === "function" ? source() : source;
    if (last?.raw !== raw) last = { raw, normal: normalPublicUrl(raw) };
    return last.normal;
  };
  if (typeof source === "string") publicUrl();
  const header = options.trustedUserHeader?.trim().toLowerCase();
  return {
    get publicUrl() {
      return publicUrl();
    },
    get issuer() {
      return `${publicUrl()}/authorize`;
    },
    get secureCookies() {
      return publicUrl().startsWith("https:");
    },
    store: options.store,
    accounts: options.accounts,
    allowlist: options.registration?.allowlist ?? DEFAULT_REDIRECT_ALLOWLIST,
    registrationGroups: options.registration?.groups ?? [],
    registrationVerifier: options.registration?.verifier,
    maxRegistrations: options.registration?.maxPerWindow ?? 20,
    registrationWindowMs: options.registration?.windowMs ?? 10 * 60_000,
    allowPrivateMetadata: options.clientMetadata?.allowPrivateAddresses ?? false,
    metadataTimeoutMs: options.clientMetadata?.timeoutMs ?? 5000,
    metadataMaxBytes: options.clientMetadata?.maxBytes ?? 5 * 1024,
    trustedUserHeader: header ? header : undefined,
    identity: options.identity,
    frontEnd: options.frontEnd ? new FrontEndTrust(options.frontEnd) : undefined,
    assertionIssuers: options.assertionIssuers ?? [],
    passwords: options.identity?.passwords ?? true,
    resourceAccess: options.resourceAccess ?? (() => true),
    clientIp: options.clientIp ?? ((req) => req.socket.remoteAddress ?? "unknown"),
    now: options.now ?? Date.now,
    logger: options.logger ?? silentLogger,
    sharedLimits: options.sharedLimits ?? false,
  };
}
