import assert from "node:assert/strict";
import { test } from "node:test";
import { obtainTokens, pkcePair, register, registerPublic, signIn, startAuthorizationServer, token, type Tokens } from "./harness.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";
const HUB_TOOL = (base: string): string => `${base}/api/mcp/mcpdemo/mcp`;

async function codeFor(base: string, clientId: string, resource?: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const back = await signIn(base, { clientId, challenge, ...(resource ? { resource } : {}) });
  return { code: back.searchParams.get("code")!, verifier };
}

async function errorOf(res: Response): Promise<[number, string, string | null]> {
  const body = (await res.json()) as { error: string };
  return [res.status, body.error, res.headers.get("cache-control")];
}

test("code exchange: a Bearer token for one hour and a refresh token, no-store", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code, verifier } = await codeFor(base, clientId, HUB_TOOL(base));
  const res = await token(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    resource: HUB_TOOL(base),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const tokens = (await res.json()) as Tokens;
  assert.equal(tokens.token_type, "Bearer");
  assert.equal(tokens.expires_in, 3600);
  assert.ok(tokens.refresh_token);
  assert.deepEqual(await server.verifier.verify(tokens.access_token, HUB_TOOL(base)), {
    user: "ada",
    groups: ["staff"],
    kind: "oauth",
    audience: HUB_TOOL(base),
  });
});

test("a wrong code_verifier (PKCE mismatch) is invalid_grant", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code } = await codeFor(base, clientId);
  const res = await token(base, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: pkcePair().verifier });
  assert.deepEqual(await errorOf(res), [400, "invalid_grant", "no-store"]);
  const missing = await token(base, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT });
  assert.deepEqual(await errorOf(missing), [400, "invalid_grant", "no-store"]);
});

test("a wrong redirect_uri at the token endpoint is invalid_grant", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code, verifier } = await codeFor(base, clientId);
  const res = await token(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    redirect_uri: "http://127.0.0.1:5556/callback",
    code_verifier: verifier,
  });
  assert.deepEqual(await errorOf(res), [400, "invalid_grant", "no-store"]);
});

test("a replayed code is invalid_grant and the token from the first exchange stops working at once", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code, verifier } = await codeFor(base, clientId);
  const exchange = { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier };
  const first = (await (await token(base, exchange)).json()) as Tokens;
  assert.ok(await server.verifier.verify(first.access_token, base));
  assert.deepEqual(await errorOf(await token(base, exchange)), [400, "invalid_grant", "no-store"]);
  assert.equal(await server.verifier.verify(first.access_token, base), null);
  const refresh = await token(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: first.refresh_token });
  assert.deepEqual(await errorOf(refresh), [400, "invalid_grant", "no-store"]);
});

test("an expired code is invalid_grant", async (t) => {
  const { base, clock } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code, verifier } = await codeFor(base, clientId);
  clock.now += 10 * 60_000;
  const res = await token(base, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
  assert.deepEqual(await errorOf(res), [400, "invalid_grant", "no-store"]);
});

test("an unknown client is 401 invalid_client naming the secret; a bad code from a valid public client is invalid_grant", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const unknown = await token(base, {
    grant_type: "authorization_code",
    client_id: "nobody",
    code: "x",
    redirect_uri: REDIRECT,
    code_verifier: pkcePair().verifier,
  });
  assert.equal(unknown.status, 401);
  const body = (await unknown.json()) as { error: string; error_description: string };
  assert.equal(body.error, "invalid_client");
  assert.match(body.error_description, /client secret/);
  const clientId = await registerPublic(base);
  const bad = await token(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: "not-a-code",
    redirect_uri: REDIRECT,
    code_verifier: pkcePair().verifier,
  });
  assert.deepEqual(await errorOf(bad), [400, "invalid_grant", "no-store"]);
  const noClient = await token(base, { grant_type: "authorization_code", code: "x" });
  assert.deepEqual(await errorOf(noClient), [400, "invalid_request", "no-store"]);
  const grant = await token(base, { grant_type: "password", client_id: clientId });
  assert.deepEqual(await errorOf(grant), [400, "unsupported_grant_type", "no-store"]);
  const dup = await fetch(`${base}/developer/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "client_id=a&client_id=b",
  });
  assert.deepEqual(await errorOf(dup), [400, "invalid_request", "no-store"]);
});

test("confidential clients authenticate with Basic or a posted secret; a wrong secret is 401", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const reg = (await (await register(base, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" })).json()) as {
    client_id: string;
    client_secret: string;
  };
  const basic = (secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(reg.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  const first = await codeFor(base, reg.client_id);
  const wrong = await token(
    base,
    { grant_type: "authorization_code", code: first.code, redirect_uri: REDIRECT, code_verifier: first.verifier },
    { Authorization: basic("wrong") },
  );
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate")!, /^Basic/);
  assert.equal(((await wrong.json()) as { error: string }).error, "invalid_client");
  const missing = await token(base, {
    grant_type: "authorization_code",
    client_id: reg.client_id,
    code: first.code,
    redirect_uri: REDIRECT,
    code_verifier: first.verifier,
  });
  assert.equal(missing.status, 401);
  await missing.arrayBuffer();
  const ok = await token(
    base,
    { grant_type: "authorization_code", code: first.code, redirect_uri: REDIRECT, code_verifier: first.verifier },
    { Authorization: basic(reg.client_secret) },
  );
  assert.equal(ok.status, 200);
  const tokens = (await ok.json()) as Tokens;
  const posted = await token(base, {
    grant_type: "refresh_token",
    client_id: reg.client_id,
    client_secret: reg.client_secret,
    refresh_token: tokens.refresh_token,
  });
  assert.equal(posted.status, 200);
  await posted.arrayBuffer();
});

test("refresh rotates; each refresh token is good once, and using one again revokes the family", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const { clientId, tokens: t0 } = await obtainTokens(base);
  const refresh = (rt: string): Promise<Response> => token(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: rt });
  const r1 = await refresh(t0.refresh_token);
  assert.equal(r1.status, 200);
  const t1 = (await r1.json()) as Tokens;
  assert.notEqual(t1.refresh_token, t0.refresh_token);
  const r2 = await refresh(t1.refresh_token);
  assert.equal(r2.status, 200);
  const t2 = (await r2.json()) as Tokens;
  assert.ok(await server.verifier.verify(t2.access_token, base));
  // t0 was used already: reuse means theft (or a replay), and the whole family goes.
  assert.deepEqual(await errorOf(await refresh(t0.refresh_token)), [400, "invalid_grant", "no-store"]);
  assert.equal(await server.verifier.verify(t2.access_token, base), null);
  assert.deepEqual(await errorOf(await refresh(t2.refresh_token)), [400, "invalid_grant", "no-store"]);
  assert.deepEqual(await errorOf(await refresh("unknown")), [400, "invalid_grant", "no-store"]);
});

test("refresh tokens are bound to their client and resource", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const { tokens } = await obtainTokens(base, HUB_TOOL(base));
  const other = await registerPublic(base, REDIRECT, "Other");
  assert.deepEqual(await errorOf(await token(base, { grant_type: "refresh_token", client_id: other, refresh_token: tokens.refresh_token })), [
    400,
    "invalid_grant",
    "no-store",
  ]);
});

test("group membership is checked again at refresh", async (t) => {
  const { base, accounts } = await startAuthorizationServer(t);
  const { clientId, tokens } = await obtainTokens(base);
  accounts.users.delete("ada");
  const res = await token(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
  assert.deepEqual(await errorOf(res), [400, "invalid_grant", "no-store"]);
});

test("a refresh for a resource the groups lost access to is refused", async (t) => {
  let allowed = true;
  const { base } = await startAuthorizationServer(t, { resourceAccess: () => allowed });
  const { clientId, tokens } = await obtainTokens(base, HUB_TOOL(base));
  const wrongTarget = await token(base, {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: tokens.refresh_token,
    resource: `${base}/api/mcp/other/mcp`,
  });
  assert.deepEqual(await errorOf(wrongTarget), [400, "invalid_target", "no-store"]);
  allowed = false;
  const res = await token(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
  assert.deepEqual(await errorOf(res), [400, "invalid_grant", "no-store"]);
});

test("revocation (RFC 7009): revoking either token ends the grant; unknown tokens answer 200 too", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const revoke = (clientId: string, tokenValue: string): Promise<Response> =>
    fetch(`${base}/developer/oauth/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: clientId, token: tokenValue }),
    });
  const a = await obtainTokens(base);
  const res = await revoke(a.clientId, a.tokens.refresh_token);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  await res.arrayBuffer();
  assert.equal(await server.verifier.verify(a.tokens.access_token, base), null);
  const b = await obtainTokens(base);
  await (await revoke(b.clientId, b.tokens.access_token)).arrayBuffer();
  assert.equal(await server.verifier.verify(b.tokens.access_token, base), null);
  const unknown = await revoke(b.clientId, "nothing");
  assert.equal(unknown.status, 200);
  await unknown.arrayBuffer();
  const noToken = await fetch(`${base}/developer/oauth/revoke`, { method: "POST", body: new URLSearchParams({ client_id: b.clientId }) });
  assert.equal(noToken.status, 400);
  await noToken.arrayBuffer();
  const noClient = await fetch(`${base}/developer/oauth/revoke`, { method: "POST", body: new URLSearchParams({ client_id: "nobody", token: "x" }) });
  assert.equal(noClient.status, 401);
  await noClient.arrayBuffer();
});

test("the token endpoint also takes a JSON body", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const { code, verifier } = await codeFor(base, clientId);
  const res = await fetch(`${base}/developer/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const bad = await fetch(`${base}/developer/oauth/token`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "[1]" });
  assert.equal(bad.status, 400);
  await bad.arrayBuffer();
});

test("the token and revocation endpoints are rate-limited per address: 429 with Retry-After, before the client is looked up", async (t) => {
  const { base, clock } = await startAuthorizationServer(t, { clientIp: (req) => String(req.headers["x-test-address"]) });
  const from = (address: string) => ({ "X-Test-Address": address });
  const limited = async (send: () => Promise<Response>, most: number): Promise<void> => {
    for (let i = 0; i < most; i++) {
      const res = await send();
      assert.notEqual(res.status, 429, `request ${i + 1}`);
      await res.arrayBuffer();
    }
    const over = await send();
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get("retry-after")) >= 1);
    assert.equal(((await over.json()) as { error: string }).error, "too_many_requests");
  };
  await limited(() => token(base, { grant_type: "refresh_token", client_id: "nobody", refresh_token: "x" }, from("198.51.100.1")), 120);
  const revoke = (address: string): Promise<Response> =>
    fetch(`${base}/developer/oauth/revoke`, { method: "POST", headers: from(address), body: new URLSearchParams({ client_id: "nobody", token: "x" }) });
  await limited(() => revoke("198.51.100.1"), 60);
  const elsewhere = await token(base, { grant_type: "refresh_token", client_id: "nobody", refresh_token: "x" }, from("198.51.100.2"));
  assert.equal(elsewhere.status, 401, "another address is not held back");
  await elsewhere.arrayBuffer();
  clock.now += 60_000;
  const later = await revoke("198.51.100.1");
  assert.equal(later.status, 401);
  await later.arrayBuffer();
});
