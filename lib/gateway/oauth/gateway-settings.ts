// The `oauth` section of gateway.json: whether the gateway runs its authorization server,
// and the few choices an operator makes about it (who the people are: identity-settings.ts).
import { s, type Converted, type Filled, type Infer, type Present, problem, section, type Fail } from "../../schema/index.ts";
import {
  HEADER_NAME_PATTERN,
  assertionIssuersSchema,
  frontEndSchema,
  identitySchema,
  parseAssertionIssuers,
  parseFrontEnd,
  parseIdentity,
  type AssertionIssuer,
  type FrontEndSettings,
  type IdentitySettings,
} from "./identity-settings.ts";

const header = () => problem(s.string({ pattern: HEADER_NAME_PATTERN }).optional(), "must be an HTTP header name");
const strings = (pattern: string) => problem(s.array(s.string({ pattern })).optional(), "must be an array of strings");

const OBJECT_OR_FALSE = "must be an object or false";

/** The `oauth` section as written in gateway.json (`false`: no authorization server). */
export const oauthObjectSchema = problem(
  s.object(
    {
      /** Header a front proxy sets to the authenticated user's name. */
      trustedUserHeader: header(),
      /** Redirect URL prefixes that may register without a token (replaces the default list). */
      registrationAllowlist: strings("^https://[^/\\s]+/"),
      /** Groups whose members may register clients with other redirects. */
      registrationGroups: strings("^.+$"),
      /**
       * Header in which a front proxy puts the caller's address (e.g. `X-Forwarded-For`; its last
       * entry counts), so rate limits apply per caller rather than to the proxy as a whole.
       */
      clientAddressHeader: header(),
      /** Sign-in through the hub's OpenID provider. */
      identity: identitySchema.optional(),
      /** The person's name (and groups) from headers of the hub's front end. */
      frontEnd: frontEndSchema.optional(),
      /** IdPs whose identity assertions (ID-JAG) the token endpoint exchanges. */
      assertionIssuers: assertionIssuersSchema.optional(),
    },
    { additionalProperties: false },
  ),
  OBJECT_OR_FALSE,
);

export const oauthSchema = problem(s.union([problem(s.literal(false), OBJECT_OR_FALSE), oauthObjectSchema]), OBJECT_OR_FALSE);

/** The section as the code reads it: on or off, and the identity sections converted. */
export type OAuthSettings = Converted<
  Present<Filled<Infer<typeof oauthObjectSchema>, "registrationGroups">, "trustedUserHeader" | "registrationAllowlist" | "clientAddressHeader">,
  {
    enabled: boolean;
    identity?: IdentitySettings;
    frontEnd?: FrontEndSettings;
    assertionIssuers?: readonly AssertionIssuer[];
  }
>;

const OAUTH = section(oauthObjectSchema);

export const DEFAULT_OAUTH_SETTINGS: OAuthSettings = {
  enabled: true,
  trustedUserHeader: undefined,
  registrationAllowlist: undefined,
  registrationGroups: [],
  clientAddressHeader: undefined,
};

/** Parses the section; `fail(key, problem)` throws the caller's config error. */
export function parseOAuthSettings(value: unknown, fail: Fail): OAuthSettings {
  if (value === undefined) return DEFAULT_OAUTH_SETTINGS;
  if (value === false) return { ...DEFAULT_OAUTH_SETTINGS, enabled: false };
  const v = OAUTH.check(value, "oauth", fail);
  return {
    enabled: true,
    trustedUserHeader: v.trustedUserHeader,
    registrationAllowlist: v.registrationAllowlist,
    registrationGroups: v.registrationGroups ?? [],
    clientAddressHeader: v.clientAddressHeader,
    ...identitySections(v, fail),
  };
}

/** The identity sections, present only when configured (a plain `oauth` section stays as it was). */
function identitySections(v: Record<string, unknown>, fail: Fail): Partial<OAuthSettings> {
  const identity = parseIdentity(v.identity, fail);
  const frontEnd = parseFrontEnd(v.frontEnd, fail);
  const assertionIssuers = parseAssertionIssuers(v.assertionIssuers, fail);
  return { ...(identity ? { identity } : {}), ...(frontEnd ? { frontEnd } : {}), ...(assertionIssuers.length > 0 ? { assertionIssuers } : {}) };
}
