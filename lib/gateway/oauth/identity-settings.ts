// The parts of gateway.json's `oauth` section that say who the hub's people are when not
// (only) the store's passwords: the hub's OpenID provider (`identity`), a front end that has
// already signed the person in (`frontEnd`), and the IdPs whose identity assertions (ID-JAG)
// the token endpoint accepts (`assertionIssuers`). Secrets are named by file, read later.
import { s, type Converted, type Filled, type Infer, type Present, type Shape, problem, section, type Fail } from "../../schema/index.ts";
import { GROUP_NAME_PATTERN } from "../contracts/names.ts";
import { addressMatcher } from "./ip-ranges.ts";

/** An HTTP header name gateway.json may name (a vouching front end's, a proxy's): one rule for every such key. */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9-]{1,64}$";
const CLAIM = "^[A-Za-z0-9_.:-]{1,64}$";
const RANGE = "^[0-9a-fA-F.:]+(/\\d{1,3})?$";
const PRINTABLE = (max: number) => `^[\\x21-\\x7e]{1,${max}}$`;

// http only for loopback, which is how the specs (and a provider on the same host) run.
const httpsUrl = () =>
  problem(s.string({ pattern: "^(https://[^\\s/]+|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?)(/\\S*)?$" }), "must be an https URL");
const text = (pattern: string) => problem(s.string({ pattern }), "is missing or malformed");
const absolutePath = () => problem(s.string({ pattern: "^/[^\\u0000]*$" }), "must be an absolute file path");
const accounts = () => problem(s.enum(["create", "existing"]).default("existing"), 'must be "create" or "existing"');
const object = <S extends Shape>(shape: S) => problem(s.object(shape, { additionalProperties: false }), "must be an object");

/** `oauth.identity` as written in gateway.json. */
export const identitySchema = object({
  issuer: httpsUrl(),
  clientId: text(PRINTABLE(200)),
  clientSecretFile: absolutePath(),
  /** What the sign-in button says ("Sign in with …"); default the issuer's host. */
  label: problem(s.string({ minLength: 1, maxLength: 80 }).optional(), "must be a short text"),
  nameClaim: text(CLAIM).default("preferred_username"),
  groupsClaim: text(CLAIM).default("groups"),
  /** The scopes asked for (`openid` always among them): providers differ in which carry the name and groups. */
  scopes: problem(
    s.array(s.string({ pattern: "^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,64}$" })).default(["openid", "profile", "groups"]),
    'must be an array of scopes including "openid"',
  ),
  /** Only groups with this prefix count, without it. */
  groupsPrefix: text(PRINTABLE(64)).optional(),
  /** Only these groups count, renamed. */
  groupsMap: problem(s.record(s.string({ pattern: GROUP_NAME_PATTERN })).optional(), "must map claim values to group names"),
  accounts: accounts(),
  /** Whether the store's passwords still work on the sign-in page. */
  passwords: problem(s.boolean().default(true), "must be true or false"),
});

/** `oauth.frontEnd` as written in gateway.json. */
export const frontEndSchema = object({
  userHeader: text(HEADER_NAME_PATTERN),
  groupsHeader: text(HEADER_NAME_PATTERN).optional(),
  secretHeader: text(HEADER_NAME_PATTERN),
  secretFile: absolutePath(),
  /** Addresses (or CIDR ranges) of the front end: the only ones whose headers count. */
  from: problem(s.array(s.string({ pattern: RANGE }), { minItems: 1 }), "must list the front end's addresses (or CIDR ranges)"),
  accounts: accounts(),
});

/** `oauth.assertionIssuers` as written in gateway.json. */
export const assertionIssuersSchema = problem(
  s.array(
    object({
      issuer: httpsUrl(),
      /** Default: the issuer's OpenID discovery document's `jwks_uri`. */
      jwksUri: httpsUrl().optional(),
      nameClaim: text(CLAIM).optional(),
    }),
  ),
  "must be an array",
);

/** Whether a first sign-in creates the account, or only existing accounts may sign in (`accounts: "create"`). */
type CreatesAccounts = { createAccounts: boolean };

export type IdentitySettings = Converted<Present<Filled<Infer<typeof identitySchema>, "label">, "groupsPrefix" | "groupsMap">, CreatesAccounts, "accounts">;
export type FrontEndSettings = Converted<Present<Infer<typeof frontEndSchema>, "groupsHeader">, CreatesAccounts, "accounts">;
export type AssertionIssuer = Converted<Present<Filled<Infer<typeof assertionIssuersSchema>[number], "nameClaim">, "jwksUri">>;

const IDENTITY = section(identitySchema);
const FRONT_END = section(frontEndSchema);
const ISSUERS = section(assertionIssuersSchema);

export function parseIdentity(value: unknown, fail: Fail): IdentitySettings | undefined {
  if (value === undefined) return undefined;
  const key = "oauth.identity";
  const v = IDENTITY.check(value, key, fail);
  if (v.groupsPrefix !== undefined && v.groupsMap !== undefined) fail(`${key}.groupsMap`, "and groupsPrefix exclude each other");
  if (!v.scopes.includes("openid")) fail(`${key}.scopes`, 'must be an array of scopes including "openid"');
  const { accounts: mode, ...rest } = v;
  return { ...rest, label: v.label ?? new URL(v.issuer).host, groupsPrefix: v.groupsPrefix, groupsMap: v.groupsMap, createAccounts: mode === "create" };
}

export function parseFrontEnd(value: unknown, fail: Fail): FrontEndSettings | undefined {
  if (value === undefined) return undefined;
  const key = "oauth.frontEnd";
  const v = FRONT_END.check(value, key, fail);
  try {
    addressMatcher(v.from);
  } catch {
    fail(`${key}.from`, "must list the front end's addresses (or CIDR ranges)");
  }
  return {
    userHeader: v.userHeader.toLowerCase(),
    groupsHeader: v.groupsHeader?.toLowerCase(),
    secretHeader: v.secretHeader.toLowerCase(),
    secretFile: v.secretFile,
    from: v.from,
    createAccounts: v.accounts === "create",
  };
}

export function parseAssertionIssuers(value: unknown, fail: Fail): readonly AssertionIssuer[] {
  if (value === undefined) return [];
  return ISSUERS.check(value, "oauth.assertionIssuers", fail).map((v) => ({ issuer: v.issuer, jwksUri: v.jwksUri, nameClaim: v.nameClaim ?? "sub" }));
}
