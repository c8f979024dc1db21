import assert from "node:assert/strict";
import { test } from "node:test";
import { isS256Challenge, verifierMatches } from "../../../lib/gateway/oauth/pkce.ts";

// RFC 7636 appendix B.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

test("S256 as in RFC 7636 appendix B; plain and malformed challenges are refused", () => {
  assert.equal(isS256Challenge(CHALLENGE, "S256"), true);
  assert.equal(isS256Challenge(CHALLENGE, "plain"), false);
  assert.equal(isS256Challenge(CHALLENGE, undefined), false);
  assert.equal(isS256Challenge("short", "S256"), false);
  assert.equal(verifierMatches(VERIFIER, CHALLENGE), true);
  assert.equal(verifierMatches(`${VERIFIER.slice(0, -1)}Y`, CHALLENGE), false);
  assert.equal(verifierMatches("too-short", CHALLENGE), false);
  assert.equal(verifierMatches(undefined, CHALLENGE), false);
});
