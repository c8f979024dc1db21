// JWTs signed as an identity provider signs them, for the specs' negative cases: the
// provider's own private keys (see oidc-provider.ts), any header and claims.
import { constants, sign, type KeyObject } from "node:crypto";

const DIGEST: Record<string, string | null> = { RS256: "sha256", PS256: "sha256", ES256: "sha256", ES384: "sha384", EdDSA: null };

export function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const body = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  const alg = String(header.alg);
  const options = alg.startsWith("PS")
    ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }
    : alg.startsWith("ES")
      ? { key, dsaEncoding: "ieee-p1363" as const }
      : key;
  return `${body}.${sign(DIGEST[alg] ?? null, Buffer.from(body), options).toString("base64url")}`;
}
