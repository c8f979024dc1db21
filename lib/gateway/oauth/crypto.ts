// The few primitives every part of the authorization server shares. Secrets leave this
// process only once, to their owner; what is stored is their SHA-256, and comparisons of
// anything secret-derived run in constant time.
import { createHash, randomBytes } from "node:crypto";

export { hmac, safeEqual } from "../../util/secrets.ts";

/** A fresh unguessable token: 32 random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** The stored form of a secret (client secret, code, refresh token, session id). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}
