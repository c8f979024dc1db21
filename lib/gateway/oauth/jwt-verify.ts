// Verifying JWTs signed by someone else (an OpenID provider's ID tokens, an IdP's ID-JAGs):
// asymmetric algorithms only, the key chosen by `kid` from the issuer's JWKS, and the
// registered claims checked here once. Our own access tokens are HMAC and live in jws.ts.
import { constants, verify as verifySignature, type KeyObject } from "node:crypto";

/** Algorithm → node:crypto digest and signature options. `none` and HMAC are never accepted. */
const ALGORITHMS: Record<string, { digest: string | null; pssSalt?: number; ieee?: boolean }> = {
  RS256: { digest: "sha256" },
  RS384: { digest: "sha384" },
  RS512: { digest: "sha512" },
  PS256: { digest: "sha256", pssSalt: 32 },
  PS384: { digest: "sha384", pssSalt: 48 },
  PS512: { digest: "sha512", pssSalt: 64 },
  ES256: { digest: "sha256", ieee: true },
  ES384: { digest: "sha384", ieee: true },
  ES512: { digest: "sha512", ieee: true },
  EdDSA: { digest: null },
};

export const SIGNING_ALGORITHMS = Object.keys(ALGORITHMS);

/** Seconds of clock difference tolerated between us and the issuer. */
const SKEW_SECONDS = 60;
const MAX_TOKEN_LENGTH = 16 * 1024;

export interface JwtHeader {
  readonly alg: string;
  readonly kid?: string;
  readonly typ?: string;
}

export type Claims = Readonly<Record<string, unknown>>;

export interface JwtExpectations {
  readonly issuer: string;
  readonly audience: string;
  /** The `typ` header the token must carry (compared case-insensitively), when the profile names one. */
  readonly type?: string;
  /** Seconds since the epoch. */
  readonly now: number;
}

/** Why a token was refused: a short reason for the log and the OAuth error, never the token itself. */
export class JwtRejected extends Error {
  readonly code = "HUBMCP_JWT_REJECTED";
}

/** Finds the key for a header; undefined when the issuer has no such key. */
export type KeyLookup = (header: JwtHeader) => Promise<KeyObject | undefined>;

/** Splits a compact JWS and reads its header and claims without trusting them. */
export function decodeJwt(token: string): { header: JwtHeader; claims: Claims; signed: string; signature: Buffer } {
  if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) throw new JwtRejected("the token is not a JWT");
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]*$/.test(p))) throw new JwtRejected("the token is not a JWT");
  const header = json(parts[0]!);
  const claims = json(parts[1]!);
  if (typeof header.alg !== "string" || (header.kid !== undefined && typeof header.kid !== "string")) throw new JwtRejected("the token header is malformed");
  if (header.typ !== undefined && typeof header.typ !== "string") throw new JwtRejected("the token header is malformed");
  return { header: header as unknown as JwtHeader, claims, signed: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, "base64url") };
}

function json(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new JwtRejected("the token is not a JWT");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new JwtRejected("the token is not a JWT");
  return value as Record<string, unknown>;
}

/** The claims of a token whose signature, issuer, audience and lifetime hold; throws JwtRejected otherwise. */
export async function verifyJwt(token: string, keys: KeyLookup, expect: JwtExpectations): Promise<Claims> {
  const { header, claims, signed, signature } = decodeJwt(token);
  const algorithm = Object.hasOwn(ALGORITHMS, header.alg) ? ALGORITHMS[header.alg]! : undefined;
  if (!algorithm) throw new JwtRejected("the token's signing algorithm is not accepted");
  if (expect.type !== undefined && header.typ?.toLowerCase() !== expect.type) throw new JwtRejected("the token is not of the expected type");
  const key = await keys(header);
  if (!key) throw new JwtRejected("the token is signed with a key the issuer does not publish");
  if (!keyFits(key, header.alg)) throw new JwtRejected("the token's key does not match its algorithm");
  const options = algorithm.pssSalt
    ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: algorithm.pssSalt }
    : algorithm.ieee
      ? { key, dsaEncoding: "ieee-p1363" as const }
      : key;
  let valid = false;
  try {
    valid = verifySignature(algorithm.digest, Buffer.from(signed), options, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new JwtRejected("the token's signature does not verify");
  if (claims.iss !== expect.issuer) throw new JwtRejected("the token is from another issuer");
  const audience = claims.aud;
  if (!(audience === expect.audience || (Array.isArray(audience) && audience.includes(expect.audience)))) {
    throw new JwtRejected("the token is meant for another audience");
  }
  if (typeof claims.exp !== "number" || claims.exp + SKEW_SECONDS <= expect.now) throw new JwtRejected("the token has expired");
  if (typeof claims.nbf === "number" && claims.nbf - SKEW_SECONDS > expect.now) throw new JwtRejected("the token is not valid yet");
  if (typeof claims.iat === "number" && claims.iat - SKEW_SECONDS > expect.now) throw new JwtRejected("the token is issued in the future");
  return claims;
}

/** An RSA key for RS/PS, an EC key of the right curve for ES, an Ed25519/Ed448 key for EdDSA. */
function keyFits(key: KeyObject, alg: string): boolean {
  const type = key.asymmetricKeyType;
  if (alg.startsWith("RS") || alg.startsWith("PS")) return type === "rsa" || type === "rsa-pss";
  if (alg === "EdDSA") return type === "ed25519" || type === "ed448";
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return type === "ec" && curve === { ES256: "prime256v1", ES384: "secp384r1", ES512: "secp521r1" }[alg];
}
