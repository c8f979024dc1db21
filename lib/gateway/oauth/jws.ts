// Access tokens are compact JWS (RFC 7515) signed with HMAC-SHA256: self-contained, so the
// gateway checks them without a store read, and bound to a grant id so a revoked grant
// (replayed code, reused refresh token, RFC 7009 revocation) stops them at once.
import { hmac, safeEqual } from "./crypto.ts";

export interface AccessTokenClaims {
  readonly iss: string;
  /** Account name. */
  readonly sub: string;
  /** The RFC 8707 resource, or the hub's own URL for a hub-wide token. */
  readonly aud: string;
  readonly client_id: string;
  /** Grant id: the record the verifier checks for revocation. */
  readonly gid: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "at+jwt" })).toString("base64url");

export function signAccessToken(claims: AccessTokenClaims, key: Buffer): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${body}.${hmac(key, body)}`;
}

/** The claims when the signature is ours and the shape is right; undefined otherwise. Expiry is the caller's. */
export function readAccessToken(token: string, key: Buffer): AccessTokenClaims | undefined {
  if (typeof token !== "string" || token.length > 4096) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
  if (!safeEqual(hmac(key, `${parts[0]}.${parts[1]}`), parts[2]!)) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  return isClaims(claims) ? claims : undefined;
}

function isClaims(value: unknown): value is AccessTokenClaims {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return ["iss", "sub", "aud", "client_id", "gid", "jti"].every((k) => typeof c[k] === "string") && typeof c.iat === "number" && typeof c.exp === "number";
}
