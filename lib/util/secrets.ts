// Comparing secrets and signing with them, decided once for the whole package: every
// comparison of something secret-derived (a token, a MAC, a password hash, a proof) goes
// through safeEqual, every keyed MAC through hmac. A spec (spec/facts.spec.ts) keeps
// node:crypto's timingSafeEqual and createHmac out of every other file.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const digest = (value: string | Uint8Array): Buffer => createHash("sha256").update(value).digest();

/**
 * Constant-time equality. Both sides are hashed first, so the time taken tells neither where
 * they differ nor whether their lengths do (a secret's length is part of the secret).
 */
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  // Equal digests of unequal lengths would take a SHA-256 collision; the length check is for clarity.
  return timingSafeEqual(digest(a), digest(b)) && a.length === b.length;
}

/**
 * Constant-time equality of two digests already made (a SHA-256 of a secret): a digest's
 * length tells nothing of the secret, so they are compared as they are, not hashed again.
 */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** HMAC-SHA-256 of `data` (UTF-8) under `key`, base64url. */
export function hmac(key: string | Uint8Array, data: string): string {
  return createHmac("sha256", key).update(data, "utf8").digest("base64url");
}
