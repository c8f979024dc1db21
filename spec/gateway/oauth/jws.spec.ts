import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { readAccessToken, signAccessToken, type AccessTokenClaims } from "../../../lib/gateway/oauth/jws.ts";

const claims: AccessTokenClaims = { iss: "https://hub/authorize", sub: "ada", aud: "https://hub", client_id: "c", gid: "g", iat: 1, exp: 2, jti: "j" };

test("a signed token reads back; any change to header, payload or signature is refused", () => {
  const key = randomBytes(32);
  const token = signAccessToken(claims, key);
  assert.deepEqual(readAccessToken(token, key), claims);
  const [h, p, s] = token.split(".") as [string, string, string];
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: "root" })).toString("base64url");
  assert.equal(readAccessToken(`${h}.${forged}.${s}`, key), undefined);
  // A different first character, whatever the signature is (a fixed "AA" tail was the real one 1 time in 4096).
  const changed = `${s[0] === "A" ? "B" : "A"}${s.slice(1)}`;
  assert.equal(readAccessToken(`${h}.${p}.${changed}`, key), undefined);
  const none = Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url");
  assert.equal(readAccessToken(`${none}.${p}.`, key), undefined);
  assert.equal(readAccessToken(token, randomBytes(32)), undefined);
  assert.equal(readAccessToken("a.b", key), undefined);
  assert.equal(readAccessToken("x".repeat(5000), key), undefined);
});

test("a well-signed token of the wrong shape is refused", () => {
  const key = randomBytes(32);
  const token = signAccessToken({ ...claims, exp: "later" } as unknown as AccessTokenClaims, key);
  assert.equal(readAccessToken(token, key), undefined);
});
