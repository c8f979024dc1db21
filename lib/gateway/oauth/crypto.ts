// The few primitives every part of the authorization server shares. Secrets leave this
// process only once, to their owner; what is stored is their SHA-256, and comparisons of
// anything secret-derived run in constant time.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh unguessable token: 32 random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** The stored form of a secret (client secret, code, refresh token, session id). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

export function hmac(key: Buffer, data: string): string {
  return createHmac("sha256", key).update(data, "utf8").digest("base64url");
}

/** Constant-time string equality; unequal lengths answer false without a timing oracle on content. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a, "utf8").digest();
  const right = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
