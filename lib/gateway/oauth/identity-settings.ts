// The parts of gateway.json's `oauth` section that say who the hub's people are when not
// (only) the store's passwords: the hub's OpenID provider (`identity`), a front end that has
// already signed the person in (`frontEnd`), and the IdPs whose identity assertions (ID-JAG)
// the token endpoint accepts (`assertionIssuers`). Secrets are named by file, read later.
import { addressMatcher } from "./ip-ranges.ts";

type Fail = (key: string, problem: string) => never;

export interface IdentitySettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecretFile: string;
  /** What the sign-in button says ("Sign in with …"); default the issuer's host. */
  readonly label: string;
  readonly nameClaim: string;
  readonly groupsClaim: string;
  /** The scopes asked for (`openid` always among them): providers differ in which carry the name and groups. */
  readonly scopes: readonly string[];
  /** Only groups with this prefix count, without it. */
  readonly groupsPrefix: string | undefined;
  /** Only these groups count, renamed. */
  readonly groupsMap: Readonly<Record<string, string>> | undefined;
  /** Whether a first sign-in creates the account, or only existing accounts may sign in. */
  readonly createAccounts: boolean;
  /** Whether the store's passwords still work on the sign-in page. */
  readonly passwords: boolean;
}

export interface FrontEndSettings {
  readonly userHeader: string;
  readonly groupsHeader: string | undefined;
  readonly secretHeader: string;
  readonly secretFile: string;
  /** Addresses (or CIDR ranges) of the front end: the only ones whose headers count. */
  readonly from: readonly string[];
  readonly createAccounts: boolean;
}

export interface AssertionIssuer {
  readonly issuer: string;
  /** Default: the issuer's OpenID discovery document's `jwks_uri`. */
  readonly jwksUri: string | undefined;
  readonly nameClaim: string;
}

const HEADER = /^[A-Za-z0-9-]{1,64}$/;
const CLAIM = /^[A-Za-z0-9_.:-]{1,64}$/;
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const RANGE = /^[0-9a-fA-F.:]+(\/\d{1,3})?$/;

function object(value: unknown, key: string, fail: Fail, known: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(key, "must be an object");
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (!known.includes(k)) fail(`${key}.${k}`, "is not a known key");
  return v;
}

function httpsUrl(value: unknown, key: string, fail: Fail): string {
  // http only for loopback, which is how the specs (and a provider on the same host) run.
  if (typeof value !== "string" || !/^(https:\/\/[^\s/]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?)(\/\S*)?$/.test(value)) {
    return fail(key, "must be an https URL");
  }
  return value;
}

function text(value: unknown, key: string, fail: Fail, shape: RegExp, fallback?: string): string {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "string" || !shape.test(value)) return fail(key, "is missing or malformed");
  return value;
}

function absolutePath(value: unknown, key: string, fail: Fail): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.includes("\0")) return fail(key, "must be an absolute file path");
  return value;
}

function accountsMode(value: unknown, key: string, fail: Fail): boolean {
  if (value === undefined || value === "existing") return false;
  if (value === "create") return true;
  return fail(key, 'must be "create" or "existing"');
}

function scopes(value: unknown, key: string, fail: Fail): readonly string[] {
  if (value === undefined) return ["openid", "profile", "groups"];
  if (!Array.isArray(value) || !value.includes("openid") || !value.every((s) => typeof s === "string" && /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(s))) {
    return fail(key, 'must be an array of scopes including "openid"');
  }
  return value as string[];
}

export function parseIdentity(value: unknown, fail: Fail): IdentitySettings | undefined {
  if (value === undefined) return undefined;
  const key = "oauth.identity";
  const v = object(value, key, fail, [
    "issuer",
    "clientId",
    "clientSecretFile",
    "label",
    "nameClaim",
    "groupsClaim",
    "scopes",
    "groupsPrefix",
    "groupsMap",
    "accounts",
    "passwords",
  ]);
  const issuer = httpsUrl(v.issuer, `${key}.issuer`, fail);
  if (v.groupsPrefix !== undefined && v.groupsMap !== undefined) fail(`${key}.groupsMap`, "and groupsPrefix exclude each other");
  let groupsMap: Record<string, string> | undefined;
  if (v.groupsMap !== undefined) {
    const map = object(v.groupsMap, `${key}.groupsMap`, fail, Object.keys(v.groupsMap as object));
    if (!Object.values(map).every((g) => typeof g === "string" && GROUP.test(g))) fail(`${key}.groupsMap`, "must map claim values to group names");
    groupsMap = map as Record<string, string>;
  }
  if (v.passwords !== undefined && typeof v.passwords !== "boolean") fail(`${key}.passwords`, "must be true or false");
  if (v.label !== undefined && (typeof v.label !== "string" || v.label.length === 0 || v.label.length > 80)) fail(`${key}.label`, "must be a short text");
  return {
    issuer,
    clientId: text(v.clientId, `${key}.clientId`, fail, /^[\x21-\x7e]{1,200}$/),
    clientSecretFile: absolutePath(v.clientSecretFile, `${key}.clientSecretFile`, fail),
    label: (v.label as string | undefined) ?? new URL(issuer).host,
    nameClaim: text(v.nameClaim, `${key}.nameClaim`, fail, CLAIM, "preferred_username"),
    groupsClaim: text(v.groupsClaim, `${key}.groupsClaim`, fail, CLAIM, "groups"),
    scopes: scopes(v.scopes, `${key}.scopes`, fail),
    groupsPrefix: v.groupsPrefix === undefined ? undefined : text(v.groupsPrefix, `${key}.groupsPrefix`, fail, /^[\x21-\x7e]{1,64}$/),
    groupsMap,
    createAccounts: accountsMode(v.accounts, `${key}.accounts`, fail),
    passwords: (v.passwords as boolean | undefined) ?? true,
  };
}

export function parseFrontEnd(value: unknown, fail: Fail): FrontEndSettings | undefined {
  if (value === undefined) return undefined;
  const key = "oauth.frontEnd";
  const v = object(value, key, fail, ["userHeader", "groupsHeader", "secretHeader", "secretFile", "from", "accounts"]);
  const from = v.from;
  if (!Array.isArray(from) || from.length === 0 || !from.every((r) => typeof r === "string" && RANGE.test(r))) {
    fail(`${key}.from`, "must list the front end's addresses (or CIDR ranges)");
  }
  try {
    addressMatcher(from as string[]);
  } catch {
    fail(`${key}.from`, "must list the front end's addresses (or CIDR ranges)");
  }
  return {
    userHeader: text(v.userHeader, `${key}.userHeader`, fail, HEADER).toLowerCase(),
    groupsHeader: v.groupsHeader === undefined ? undefined : text(v.groupsHeader, `${key}.groupsHeader`, fail, HEADER).toLowerCase(),
    secretHeader: text(v.secretHeader, `${key}.secretHeader`, fail, HEADER).toLowerCase(),
    secretFile: absolutePath(v.secretFile, `${key}.secretFile`, fail),
    from: from as string[],
    createAccounts: accountsMode(v.accounts, `${key}.accounts`, fail),
  };
}

export function parseAssertionIssuers(value: unknown, fail: Fail): readonly AssertionIssuer[] {
  if (value === undefined) return [];
  const key = "oauth.assertionIssuers";
  if (!Array.isArray(value)) return fail(key, "must be an array");
  return value.map((entry, i) => {
    const v = object(entry, `${key}[${i}]`, fail, ["issuer", "jwksUri", "nameClaim"]);
    return {
      issuer: httpsUrl(v.issuer, `${key}[${i}].issuer`, fail),
      jwksUri: v.jwksUri === undefined ? undefined : httpsUrl(v.jwksUri, `${key}[${i}].jwksUri`, fail),
      nameClaim: text(v.nameClaim, `${key}[${i}].nameClaim`, fail, CLAIM, "sub"),
    };
  });
}
