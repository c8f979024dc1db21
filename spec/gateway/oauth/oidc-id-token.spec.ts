// The ID token checks, with tokens signed by the real provider's own keys and its real JWKS:
// wrong issuer, audience, nonce, expired, an unknown key (fetched once, then not again within
// the bound), a second audience without azp, and an unsigned token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JwtRejected } from "../../../lib/gateway/oauth/jwt-verify.ts";
import { OpenIdRelyingParty } from "../../../lib/gateway/oauth/upstream-oidc.ts";
import { ProviderUnreachable } from "../../../lib/gateway/oauth/fetch-json.ts";
import { CLIENT_ID, CLIENT_SECRET, signingKey, startProvider } from "./oidc-provider.ts";
import { signJwt } from "./sign-jwt.ts";

test("ID tokens are held to iss, aud, exp, nonce, azp and the provider's published keys", { timeout: 30_000 }, async (t) => {
  const provider = await startProvider(t);
  provider.configure("http://127.0.0.1:9/callback");
  const clock = { now: Date.now() };
  const rp = new OpenIdRelyingParty({ issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => clock.now });
  const key = provider.keys[0]!;
  const iat = Math.floor(clock.now / 1000);
  const good = { iss: provider.issuer, aud: CLIENT_ID, sub: "ada", nonce: "n1", iat, exp: iat + 300 };
  const token = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "RS256", kid: key.kid }, signer = key.privateKey): string =>
    signJwt(header, claims, signer);

  assert.equal((await rp.verifyIdToken(token(good), "n1")).sub, "ada");
  const refused = async (jwt: string, reason: RegExp, nonce = "n1"): Promise<void> => {
    await assert.rejects(rp.verifyIdToken(jwt, nonce), (err: unknown) => err instanceof JwtRejected && reason.test(err.message));
  };
  await refused(token({ ...good, iss: "https://evil.example" }), /another issuer/);
  await refused(token({ ...good, aud: "someone-else" }), /another audience/);
  await refused(token({ ...good, exp: iat - 120 }), /expired/);
  await refused(token(good), /nonce/, "n2");
  await refused(token({ ...good, nonce: undefined }), /nonce/);
  await refused(token({ ...good, aud: [CLIENT_ID, "other"] }), /another client/);
  assert.equal((await rp.verifyIdToken(token({ ...good, aud: [CLIENT_ID, "other"], azp: CLIENT_ID }), "n1")).sub, "ada");
  await refused(token({ ...good, sub: "" }), /names nobody/);
  await refused(token({ ...good, nbf: iat + 600 }), /not valid yet/);
  await refused(token({ ...good, iat: iat + 600 }), /future/);
  const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify(good)).toString("base64url")}.`;
  await refused(unsigned, /algorithm/);
  await refused(token(good, { alg: "RS256", kid: key.kid }, signingKey("x").privateKey), /signature/);
  await refused("not-a-jwt", /not a JWT/);

  // A kid the provider does not publish: one fetch to look, then none within the bound.
  const stranger = signingKey("stranger");
  const fetches = provider.jwksFetches;
  await refused(token(good, { alg: "RS256", kid: "stranger" }, stranger.privateKey), /does not publish/);
  assert.equal(provider.jwksFetches, fetches + 1);
  await refused(token(good, { alg: "RS256", kid: "stranger-2" }, stranger.privateKey), /does not publish/);
  assert.equal(provider.jwksFetches, fetches + 1, "no second fetch within a minute");
  clock.now += 61_000;
  await refused(token({ ...good, iat: iat + 61, exp: iat + 400 }, { alg: "RS256", kid: "stranger-3" }, stranger.privateKey), /does not publish/);
  assert.equal(provider.jwksFetches, fetches + 2, "after the bound, an unknown kid looks again");
});

test("discovery that names another issuer, or no provider at all, is ProviderUnreachable", { timeout: 30_000 }, async (t) => {
  const provider = await startProvider(t);
  provider.configure("http://127.0.0.1:9/callback");
  const wrong = new OpenIdRelyingParty({ issuer: `${provider.issuer}/`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: Date.now });
  await assert.rejects(wrong.authorizationUrl("http://127.0.0.1:9/callback", "s", "n", "v"), ProviderUnreachable);
  provider.down = true;
  const rp = new OpenIdRelyingParty({ issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: Date.now });
  await assert.rejects(rp.authorizationUrl("http://127.0.0.1:9/callback", "s", "n", "v"), ProviderUnreachable);
  provider.down = false;
  const url = new URL(await rp.authorizationUrl("http://127.0.0.1:9/callback", "s", "n", "v"));
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.equal(url.searchParams.get("nonce"), "n");
  assert.equal(url.searchParams.get("scope"), "openid profile groups");
  const narrow = new OpenIdRelyingParty({
    issuer: provider.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    scopes: ["openid", "email"],
    now: Date.now,
  });
  assert.equal(new URL(await narrow.authorizationUrl("http://127.0.0.1:9/callback", "s", "n", "v")).searchParams.get("scope"), "openid email");
});
