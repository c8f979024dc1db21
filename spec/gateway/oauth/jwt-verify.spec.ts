// Signature checks of other issuers' JWTs for every algorithm accepted, and the refusals:
// a key of the wrong type for the algorithm, HMAC and `none`, a wrong `typ`, malformed tokens.
import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { test } from "node:test";
import { decodeJwt, JwtRejected, verifyJwt } from "../../../lib/gateway/oauth/jwt-verify.ts";
import { signJwt } from "./sign-jwt.ts";

const now = 1_800_000_000;
const claims = { iss: "https://idp.example", aud: "https://hub.example/authorize", sub: "ada", exp: now + 60 };
const expect = { issuer: claims.iss, audience: claims.aud, now };

function pair(kind: "rsa" | "ec" | "ed25519", curve?: string): { privateKey: KeyObject; publicKey: KeyObject } {
  if (kind === "rsa") return generateKeyPairSync("rsa", { modulusLength: 2048 });
  if (kind === "ec") return generateKeyPairSync("ec", { namedCurve: curve! });
  return generateKeyPairSync("ed25519");
}

test("RS256, PS256, ES256, ES384 and EdDSA verify with the issuer's key; a key of another type does not", async () => {
  const rsa = pair("rsa");
  const p256 = pair("ec", "prime256v1");
  const p384 = pair("ec", "secp384r1");
  const ed = pair("ed25519");
  const cases: Array<[string, { privateKey: KeyObject; publicKey: KeyObject }]> = [
    ["RS256", rsa],
    ["PS256", rsa],
    ["ES256", p256],
    ["ES384", p384],
    ["EdDSA", ed],
  ];
  for (const [alg, keys] of cases) {
    const token = signJwt({ alg, kid: "k" }, claims, keys.privateKey);
    assert.equal((await verifyJwt(token, async () => keys.publicKey, expect)).sub, "ada", alg);
    const wrongType = alg === "EdDSA" ? rsa.publicKey : alg.startsWith("ES") ? ed.publicKey : p256.publicKey;
    await assert.rejects(
      verifyJwt(token, async () => wrongType, expect),
      /does not match its algorithm/,
      alg,
    );
  }
  // ES256 with a P-384 key: the curve must be the algorithm's.
  await assert.rejects(
    verifyJwt(signJwt({ alg: "ES256" }, claims, p256.privateKey), async () => p384.publicKey, expect),
    /does not match/,
  );
  const token = signJwt({ alg: "RS256", typ: "oauth-id-jag+jwt" }, claims, rsa.privateKey);
  assert.equal((await verifyJwt(token, async () => rsa.publicKey, { ...expect, type: "oauth-id-jag+jwt" })).sub, "ada");
  await assert.rejects(
    verifyJwt(signJwt({ alg: "RS256", typ: "JWT" }, claims, rsa.privateKey), async () => rsa.publicKey, { ...expect, type: "oauth-id-jag+jwt" }),
    /expected type/,
  );
  await assert.rejects(
    verifyJwt(signJwt({ alg: "RS256" }, claims, rsa.privateKey), async () => undefined, expect),
    /does not publish/,
  );
  await assert.rejects(
    verifyJwt(signJwt({ alg: "RS256" }, { ...claims, exp: "soon" }, rsa.privateKey), async () => rsa.publicKey, expect),
    /expired/,
  );
});

test("malformed tokens are refused before any key is looked up", async () => {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  const bad = [
    "a.b",
    `${part({ alg: "RS256" })}.${part([1])}.x`,
    `${part({ alg: 5 })}.${part({})}.x`,
    `${part({ alg: "RS256", kid: 5 })}.${part({})}.x`,
    `${part({ alg: "RS256", typ: 5 })}.${part({})}.x`,
    `${Buffer.from("{not json").toString("base64url")}.${part({})}.x`,
    `${part({ alg: "RS256" })}.${part({})}.x!`,
    "x".repeat(20_000),
  ];
  for (const token of bad) assert.throws(() => decodeJwt(token), JwtRejected);
  await assert.rejects(
    verifyJwt(`${part({ alg: "HS256" })}.${part(claims)}.x`, async () => assert.fail("no key for HMAC"), expect),
    /algorithm is not accepted/,
  );
});
