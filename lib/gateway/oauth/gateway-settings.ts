// The `oauth` section of gateway.json: whether the gateway runs its authorization server,
// and the few choices an operator makes about it (who the people are: identity-settings.ts).
import {
  parseAssertionIssuers,
  parseFrontEnd,
  parseIdentity,
  type AssertionIssuer,
  type FrontEndSettings,
  type IdentitySettings,
} from "./identity-settings.ts";

export interface OAuthSettings {
  readonly enabled: boolean;
  /** Header a front proxy sets to the authenticated user's name. */
  readonly trustedUserHeader: string | undefined;
  /** Redirect URL prefixes that may register without a token (replaces the default list). */
  readonly registrationAllowlist: readonly string[] | undefined;
  /** Groups whose members may register clients with other redirects. */
  readonly registrationGroups: readonly string[];
  /**
   * Header in which a front proxy puts the caller's address (e.g. `X-Forwarded-For`; its last
   * entry counts), so rate limits apply per caller rather than to the proxy as a whole.
   */
  readonly clientAddressHeader: string | undefined;
  /** Sign-in through the hub's OpenID provider. */
  readonly identity?: IdentitySettings | undefined;
  /** The person's name (and groups) from headers of the hub's front end. */
  readonly frontEnd?: FrontEndSettings | undefined;
  /** IdPs whose identity assertions (ID-JAG) the token endpoint exchanges. */
  readonly assertionIssuers?: readonly AssertionIssuer[];
}

export const DEFAULT_OAUTH_SETTINGS: OAuthSettings = {
  enabled: true,
  trustedUserHeader: undefined,
  registrationAllowlist: undefined,
  registrationGroups: [],
  clientAddressHeader: undefined,
};

const HEADER = /^[A-Za-z0-9-]{1,64}$/;

/** Parses the section; `fail(key, problem)` throws the caller's config error. */
export function parseOAuthSettings(value: unknown, fail: (key: string, problem: string) => never): OAuthSettings {
  if (value === undefined) return DEFAULT_OAUTH_SETTINGS;
  if (value === false) return { ...DEFAULT_OAUTH_SETTINGS, enabled: false };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("oauth", "must be an object or false");
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) {
    const known = ["trustedUserHeader", "registrationAllowlist", "registrationGroups", "clientAddressHeader", "identity", "frontEnd", "assertionIssuers"];
    if (!known.includes(k)) fail(`oauth.${k}`, "is not a known key");
  }
  if (v.trustedUserHeader !== undefined && (typeof v.trustedUserHeader !== "string" || !HEADER.test(v.trustedUserHeader))) {
    fail("oauth.trustedUserHeader", "must be an HTTP header name");
  }
  if (v.clientAddressHeader !== undefined && (typeof v.clientAddressHeader !== "string" || !HEADER.test(v.clientAddressHeader))) {
    fail("oauth.clientAddressHeader", "must be an HTTP header name");
  }
  const strings = (key: string, item: (s: string) => boolean): string[] | undefined => {
    const list = v[key];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((s) => typeof s === "string" && item(s))) return fail(`oauth.${key}`, "must be an array of strings");
    return list as string[];
  };
  const allowlist = strings("registrationAllowlist", (s) => /^https:\/\/[^/\s]+\//.test(s));
  return {
    enabled: true,
    trustedUserHeader: v.trustedUserHeader as string | undefined,
    registrationAllowlist: allowlist,
    registrationGroups: strings("registrationGroups", (s) => s.length > 0) ?? [],
    clientAddressHeader: v.clientAddressHeader as string | undefined,
    ...identitySections(v, fail),
  };
}

/** The identity sections, present only when configured (a plain `oauth` section stays as it was). */
function identitySections(v: Record<string, unknown>, fail: (key: string, problem: string) => never): Partial<OAuthSettings> {
  const identity = parseIdentity(v.identity, fail);
  const frontEnd = parseFrontEnd(v.frontEnd, fail);
  const assertionIssuers = parseAssertionIssuers(v.assertionIssuers, fail);
  return { ...(identity ? { identity } : {}), ...(frontEnd ? { frontEnd } : {}), ...(assertionIssuers.length > 0 ? { assertionIssuers } : {}) };
}
