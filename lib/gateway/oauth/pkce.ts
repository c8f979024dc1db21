// PKCE (RFC 7636), S256 only: OAuth 2.1 drops `plain`, and every MCP client sends S256.
import { createHash } from "node:crypto";
import { safeEqual } from "./crypto.ts";

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isS256Challenge(challenge: string | undefined, method: string | undefined): boolean {
  return method === "S256" && typeof challenge === "string" && CHALLENGE.test(challenge);
}

export function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (typeof verifier !== "string" || !VERIFIER.test(verifier)) return false;
  return safeEqual(createHash("sha256").update(verifier, "ascii").digest("base64url"), challenge);
}
