// Enterprise-Managed Authorization against the real provider's keys: ID-JAGs signed with the
// keys oidc-provider publishes (found through its discovery document), exchanged at the token
// endpoint for an access token without consent; and each refusal an OAuth error: wrong issuer,
// audience, resource, client, type, expired, replayed, unknown account, no access.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { removeUser } from "../../../lib/gateway/cli/remove-user.ts";
import { registerPublic, token } from "./harness.ts";
import { startHub } from "./hub.ts";
import { ping } from "./oidc-flow.ts";
import { signingKey, startProvider } from "./oidc-provider.ts";
import { signJwt } from "./sign-jwt.ts";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

test("an ID-JAG from a trusted IdP becomes an access token for its resource; every bad one is an OAuth error", { timeout: 60_000 }, async (t) => {
  const provider = await startProvider(t);
  provider.configure("http://127.0.0.1:9/callback");
  const { gateway, store } = await startHub(t, { assertionIssuers: [{ issuer: provider.issuer }] });
  const base = gateway.publicUrl;
  const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] };
  assert.ok(metadata.grant_types_supported.includes(JWT_BEARER), "advertised");

  const clientId = await registerPublic(base);
  const tool = `${base}/api/mcp/private/mcp`;
  const now = Math.floor(Date.now() / 1000);
  const good = { iss: provider.issuer, sub: "ada", aud: `${base}/authorize`, client_id: clientId, resource: tool, iat: now, exp: now + 300 };
  const jag = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key = provider.keys[0]!): string =>
    signJwt({ alg: "RS256", kid: key.kid, typ: "oauth-id-jag+jwt", ...header }, { ...good, jti: randomUUID(), ...claims }, key.privateKey);
  const exchange = async (assertion: string, extra: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await token(base, { grant_type: JWT_BEARER, client_id: clientId, assertion, ...extra });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const assertion = jag();
  const ok = await exchange(assertion);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.token_type, "Bearer");
  assert.equal(ok.body.refresh_token, undefined, "no refresh token: the client asks its IdP again");
  assert.equal(await ping(tool, ok.body.access_token as string), 200);
  assert.equal(await ping(`${base}/api/mcp/mcpdemo/mcp`, ok.body.access_token as string), 401, "bound to the resource it named");
  const forHub = await exchange(jag({ resource: `${base}/mcp` }));
  assert.equal(await ping(`${base}/mcp`, forHub.body.access_token as string), 200);

  const refusals: Array<[string, Promise<{ status: number; body: Record<string, unknown> }>, string, RegExp]> = [
    ["replayed", exchange(assertion), "invalid_grant", /already used/],
    ["untrusted issuer", exchange(jag({ iss: "https://idp.elsewhere.example" })), "invalid_grant", /not trusted/],
    ["key not the issuer's", exchange(jag({}, {}, signingKey("key-1"))), "invalid_grant", /signature/],
    ["unknown kid", exchange(jag({}, {}, signingKey("stranger"))), "invalid_grant", /does not publish/],
    ["wrong audience", exchange(jag({ aud: "https://other-hub.example/authorize" })), "invalid_grant", /another audience/],
    ["expired", exchange(jag({ iat: now - 900, exp: now - 600 })), "invalid_grant", /expired/],
    ["too long-lived", exchange(jag({ exp: now + 7200 })), "invalid_grant", /longer than an hour/],
    ["not an ID-JAG", exchange(jag({}, { typ: "JWT" })), "invalid_grant", /expected type/],
    ["another client's", exchange(jag({ client_id: "someone-else" })), "invalid_grant", /another client/],
    ["no jti", exchange(jag({ jti: "" })), "invalid_grant", /no jti/],
    ["another hub's resource", exchange(jag({ resource: "https://elsewhere.example/mcp" })), "invalid_target", /no resource of this hub/],
    ["no resource", exchange(jag({ resource: undefined })), "invalid_target", /no resource/],
    ["resource parameter differs", exchange(jag(), { resource: `${base}/mcp` }), "invalid_target", /does not match/],
    ["unknown person", exchange(jag({ sub: "mallory" })), "invalid_grant", /no account/],
    ["not a JWT", exchange("garbage"), "invalid_grant", /not a JWT/],
    ["no assertion", exchange(""), "invalid_request", /assertion is required/],
  ];
  for (const [why, answer, error, description] of refusals) {
    const { status, body } = await answer;
    assert.equal(status, 400, why);
    assert.equal(body.error, error, why);
    assert.match(String(body.error_description), description, why);
  }

  // The account loses the tool's group: no token for it.
  const { StoreAccountDirectory } = await import("../../../lib/gateway/identity/accounts.ts");
  await new StoreAccountDirectory(store).setGroups("ada", []);
  const denied = await exchange(jag());
  assert.equal(denied.body.error, "invalid_grant");
  assert.match(String(denied.body.error_description), /no access/);

  // Removing the person ends the tokens assertions produced.
  await removeUser(store, "ada");
  assert.equal(await ping(`${base}/mcp`, forHub.body.access_token as string), 401);
});

test("an IdP that can't be reached is temporarily_unavailable; a hub trusting none knows no jwt-bearer", { timeout: 60_000 }, async (t) => {
  const provider = await startProvider(t);
  provider.configure("http://127.0.0.1:9/callback");
  provider.down = true;
  const { gateway } = await startHub(t, { assertionIssuers: [{ issuer: provider.issuer }] });
  const clientId = await registerPublic(gateway.publicUrl);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: provider.issuer,
    sub: "ada",
    aud: `${gateway.publicUrl}/authorize`,
    client_id: clientId,
    resource: `${gateway.publicUrl}/mcp`,
    jti: "j1",
    iat: now,
    exp: now + 60,
  };
  const assertion = signJwt({ alg: "RS256", kid: "key-1", typ: "oauth-id-jag+jwt" }, claims, provider.keys[0]!.privateKey);
  const down = await token(gateway.publicUrl, { grant_type: JWT_BEARER, client_id: clientId, assertion });
  assert.equal(down.status, 503);
  assert.equal(((await down.json()) as { error: string }).error, "temporarily_unavailable");
  provider.down = false;
  const up = await token(gateway.publicUrl, { grant_type: JWT_BEARER, client_id: clientId, assertion });
  assert.equal(up.status, 200, "the failed discovery was not kept");
  await up.arrayBuffer();

  const plain = await startHub(t);
  const metadata = (await (await fetch(`${plain.gateway.publicUrl}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] };
  assert.ok(!metadata.grant_types_supported.includes(JWT_BEARER));
  const refused = await token(plain.gateway.publicUrl, { grant_type: JWT_BEARER, client_id: await registerPublic(plain.gateway.publicUrl), assertion });
  assert.equal(refused.status, 400);
  assert.equal(((await refused.json()) as { error: string }).error, "unsupported_grant_type");
});
