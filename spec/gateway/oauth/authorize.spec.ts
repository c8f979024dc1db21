import assert from "node:assert/strict";
import { test } from "node:test";
import { authorizeUrl, hiddenField, pkcePair, registerPublic, signIn, startAuthorizationServer } from "./harness.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";

function params(clientId: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    state: "s1",
    ...extra,
  };
}

test("an unknown client or a mismatched redirect is an error page at once, never a redirect", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const cases = [
    params("no-such-client"),
    params(clientId, { redirect_uri: "https://evil.example/cb" }),
    params(clientId, { redirect_uri: "http://127.0.0.1:5555/other" }),
    params(clientId, { redirect_uri: "http://localhost:5555/callback" }),
    { client_id: "no-such-client", redirect_uri: "https://evil.example/cb" },
  ];
  for (const query of cases) {
    const res = await fetch(authorizeUrl(base, query), { redirect: "manual" });
    assert.equal(res.status, 400, JSON.stringify(query));
    assert.equal(res.headers.get("location"), null);
    assert.match(res.headers.get("content-type")!, /text\/html/);
    await res.arrayBuffer();
  }
  const twice = await fetch(`${authorizeUrl(base, params(clientId))}&client_id=x`, { redirect: "manual" });
  assert.equal(twice.status, 400);
  await twice.arrayBuffer();
});

test("a loopback redirect matches on any port (native apps pick a port per sign-in)", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const back = await signIn(base, { clientId, challenge: pkcePair().challenge, redirectUri: "http://127.0.0.1:61234/callback" });
  assert.equal(back.origin, "http://127.0.0.1:61234");
  assert.ok(back.searchParams.get("code"));
});

test("once client and redirect are good, problems go back to the client with state and iss", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const cases: Array<[Record<string, string | undefined>, string]> = [
    [{ code_challenge: undefined }, "invalid_request"],
    [{ code_challenge_method: "plain" }, "invalid_request"],
    [{ response_type: "token" }, "unsupported_response_type"],
    [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
    [{ resource: "not a url" }, "invalid_target"],
  ];
  for (const [extra, error] of cases) {
    const res = await fetch(authorizeUrl(base, params(clientId, extra)), { redirect: "manual" });
    assert.equal(res.status, 303, error);
    const back = new URL(res.headers.get("location")!);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get("error"), error);
    assert.equal(back.searchParams.get("state"), "s1");
    assert.equal(back.searchParams.get("iss"), `${base}/authorize`);
  }
});

test("unknown scopes are ignored, never invalid_scope", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const res = await fetch(authorizeUrl(base, params(clientId, { scope: "openid profile claudeai whatever" })), { redirect: "manual" });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /name="password"/);
});

test("the login page: form fields, CSRF, a cookie that is HttpOnly and SameSite=Lax, nothing external", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base, REDIRECT, "Spec <b>client</b>");
  const res = await fetch(authorizeUrl(base, params(clientId)), { redirect: "manual" });
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<input type="text" id="username" name="username"/);
  assert.match(html, /<input type="password" id="password" name="password"/);
  assert.match(html, /name="viewport"/);
  assert.match(html, /<form method="post" action="login">/);
  assert.match(html, /Spec &#60;b&#62;client&#60;\/b&#62;/);
  assert.doesNotMatch(html, /<script|<link|src=/);
  assert.ok(hiddenField(html, "csrf").length > 20);
  const cookie = res.headers.getSetCookie()[0]!;
  assert.match(cookie, /^hub_oauth=[A-Za-z0-9_-]{43}; Path=\/developer\/oauth; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.equal(res.headers.get("cache-control"), "no-store");
});

test("on an https hub the browser cookie is __Host-hub_oauth (Secure, Path=/), and one without the prefix counts for nothing", async (t) => {
  const { base } = await startAuthorizationServer(t, { publicUrl: "https://hub.example" });
  const clientId = await registerPublic(base);
  const page = await fetch(authorizeUrl(base, params(clientId)));
  const html = await page.text();
  const set = page.headers.getSetCookie()[0]!;
  assert.match(set, /^__Host-hub_oauth=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
  const browser = set.split(";")[0]!;
  const login = await fetch(`${base}/developer/oauth/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: browser },
    body: new URLSearchParams({ request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf"), username: "ada", password: "correct horse" }),
  });
  assert.equal(login.status, 303);
  await login.arrayBuffer();
  const session = login.headers.getSetCookie()[0]!.split(";")[0]!;
  assert.match(session, /^__Host-hub_oauth=/);
  const consent = new URL(login.headers.get("location")!, `${base}/developer/oauth/login`);
  const signedIn = await fetch(consent, { headers: { Cookie: session } });
  assert.match(await signedIn.text(), /name="decision"/);
  // The same session id planted without the prefix (by a sibling subdomain, or over plain http) is not a sign-in.
  const planted = await fetch(consent, { headers: { Cookie: session.replace(/^__Host-/, "") } });
  const plantedHtml = await planted.text();
  assert.doesNotMatch(plantedHtml, /name="decision"/);
  assert.match(plantedHtml, /name="password"/);
  // A whole sign-in works end to end with it.
  const { challenge } = pkcePair();
  assert.ok((await signIn(base, { clientId, challenge })).searchParams.get("code"));
});

test("on an https hub under a path the cookie keeps that path: __Secure-hub_oauth", async (t) => {
  const { base } = await startAuthorizationServer(t, { publicUrl: "https://hub.example/hub" });
  const register = await fetch(`${base}/hub/authorize/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = (await register.json()) as { client_id: string };
  const page = await fetch(authorizeUrl(`${base}/hub`, params(client_id)));
  await page.arrayBuffer();
  assert.match(
    page.headers.getSetCookie()[0]!,
    /^__Secure-hub_oauth=[A-Za-z0-9_-]{43}; Path=\/hub\/developer\/oauth; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/,
  );
});

test("login: a wrong password is 401 on the same form; a missing or foreign CSRF token is 403", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const page = await fetch(authorizeUrl(base, params(clientId)));
  const html = await page.text();
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  const post = (body: Record<string, string>, cookieHeader = cookie): Promise<Response> =>
    fetch(`${base}/developer/oauth/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookieHeader },
      body: new URLSearchParams(body),
    });
  const request = hiddenField(html, "request");
  const csrf = hiddenField(html, "csrf");
  const wrong = await post({ request, csrf, username: "ada", password: "wrong" });
  assert.equal(wrong.status, 401);
  const again = await wrong.text();
  assert.match(again, /Wrong user name or password/);
  assert.doesNotMatch(again, /wrong"/);
  const noCsrf = await post({ request, username: "ada", password: "correct horse" });
  assert.equal(noCsrf.status, 403);
  await noCsrf.arrayBuffer();
  const otherBrowser = await post({ request, csrf, username: "ada", password: "correct horse" }, "hub_oauth=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  assert.equal(otherBrowser.status, 403);
  await otherBrowser.arrayBuffer();
  const stale = await post({ request: "x".repeat(43), csrf, username: "ada", password: "correct horse" });
  assert.equal(stale.status, 400);
  await stale.arrayBuffer();
  const ok = await post({ request, csrf, username: "ada", password: "correct horse" });
  assert.equal(ok.status, 303);
  const session = ok.headers.getSetCookie()[0]!;
  assert.notEqual(session.split(";")[0], cookie, "sign-in replaces the browser cookie");
  await ok.arrayBuffer();
});

test("login attempts per address are limited", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const page = await fetch(authorizeUrl(base, params(clientId)));
  const html = await page.text();
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  let last = 0;
  for (let i = 0; i < 11; i += 1) {
    const res = await fetch(`${base}/developer/oauth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams({ request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf"), username: `user${i}`, password: "guess" }),
    });
    last = res.status;
    if (last === 429) assert.equal(res.headers.get("retry-after"), "60");
    await res.arrayBuffer();
  }
  assert.equal(last, 429);
});

/** Authorize for `resource`, sign in as ada by the form: the signed-in cookie and the page that follows. */
async function consentAfterLogin(base: string, clientId: string, resource: string): Promise<{ cookie: string; page: Response }> {
  const first = await fetch(authorizeUrl(base, params(clientId, { resource })));
  const html = await first.text();
  const login = await fetch(`${base}/developer/oauth/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: first.headers.getSetCookie()[0]!.split(";")[0]! },
    body: new URLSearchParams({ request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf"), username: "ada", password: "correct horse" }),
  });
  await login.arrayBuffer();
  const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;
  assert.match(login.headers.get("location")!, /^consent\?request=/);
  return { cookie, page: await fetch(new URL(login.headers.get("location")!, `${base}/developer/oauth/login`), { headers: { Cookie: cookie } }) };
}

test("consent names the client, its redirect host and the tool; deny goes back as access_denied", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base, REDIRECT, "Inspector");
  const { cookie, page } = await consentAfterLogin(base, clientId, `${base}/api/mcp/mcpdemo/mcp`);
  const consent = await page.text();
  assert.match(consent, /Inspector/);
  assert.match(consent, /127\.0\.0\.1:5555/);
  assert.match(consent, /mcpdemo/);
  assert.match(consent, /name="decision" value="deny"/);
  assert.match(consent, /name="decision" value="approve"/);
  // Re-authorizing while signed in goes straight to consent.
  const direct = await (await fetch(authorizeUrl(base, params(clientId)), { headers: { Cookie: cookie } })).text();
  assert.match(direct, /all tools of this hub/);
  const denied = await signIn(base, { clientId, challenge: pkcePair().challenge, decision: "deny" });
  assert.equal(denied.searchParams.get("error"), "access_denied");
  assert.equal(denied.searchParams.get("iss"), `${base}/authorize`);
  assert.equal(denied.searchParams.get("code"), null);
});

test("approval redirects with code, state and iss; the request can't be approved twice", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const back = await signIn(base, { clientId, challenge: pkcePair().challenge, state: "xyz" });
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
  assert.equal(back.searchParams.get("state"), "xyz");
  assert.equal(back.searchParams.get("iss"), `${base}/authorize`);
  assert.match(back.searchParams.get("code")!, /^[A-Za-z0-9_-]{43}$/);
});

test("consent needs a signed-in session and a valid CSRF token", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const page = await fetch(authorizeUrl(base, params(clientId)));
  const html = await page.text();
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  const request = hiddenField(html, "request");
  const post = (csrf: string): Promise<Response> =>
    fetch(`${base}/developer/oauth/consent`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
      body: new URLSearchParams({ request, csrf, decision: "approve" }),
    });
  const forged = await post("forged");
  assert.equal(forged.status, 403);
  await forged.arrayBuffer();
  const unsigned = await fetch(`${base}/developer/oauth/consent?request=${request}`, { headers: { Cookie: cookie } });
  assert.match(await unsigned.text(), /name="password"/, "without a session the consent page asks to sign in");
  const expired = await fetch(`${base}/developer/oauth/consent?request=nope`);
  assert.equal(expired.status, 400);
  await expired.arrayBuffer();
});

test("a front proxy's trusted user header signs the user in without the login form", async (t) => {
  const { base } = await startAuthorizationServer(t, { trustedUserHeader: "X-Forwarded-User" });
  const clientId = await registerPublic(base);
  const page = await fetch(authorizeUrl(base, params(clientId)), { headers: { "X-Forwarded-User": "ada" } });
  const html = await page.text();
  assert.match(html, /Allow/);
  assert.match(html, /<strong>ada<\/strong>/);
  const unknown = await fetch(authorizeUrl(base, params(clientId)), { headers: { "X-Forwarded-User": "mallory" } });
  assert.match(await unknown.text(), /name="password"/);
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  const approved = await fetch(`${base}/developer/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, "X-Forwarded-User": "ada" },
    body: new URLSearchParams({ request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf"), decision: "approve" }),
  });
  assert.equal(approved.status, 303);
  assert.ok(new URL(approved.headers.get("location")!).searchParams.get("code"));
});

test("a group without access to the resource gets access_denied at consent", async (t) => {
  const { base } = await startAuthorizationServer(t, { resourceAccess: (resource, groups) => resource === undefined || groups.includes("admins") });
  const clientId = await registerPublic(base);
  const back = await signIn(base, { clientId, challenge: pkcePair().challenge, resource: `${base}/api/mcp/secret/mcp` });
  assert.equal(back.searchParams.get("error"), "access_denied");
});

test("an account outside the tool's groups is told it has no access before any Allow; going back is access_denied", async (t) => {
  const { base } = await startAuthorizationServer(t, { resourceAccess: (resource, groups) => resource === undefined || groups.includes("admins") });
  const clientId = await registerPublic(base, REDIRECT, "Inspector");
  const { cookie, page: consent } = await consentAfterLogin(base, clientId, `${base}/api/mcp/secret/mcp`);
  assert.equal(consent.status, 403);
  const text = await consent.text();
  assert.match(text, /You have no access to the tool “secret”/);
  assert.match(text, /<strong>ada<\/strong>/);
  assert.doesNotMatch(text, /Allow|value="approve"/);
  const back = await fetch(`${base}/developer/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: new URLSearchParams({ request: hiddenField(text, "request"), csrf: hiddenField(text, "csrf"), decision: "deny" }),
  });
  await back.arrayBuffer();
  assert.equal(new URL(back.headers.get("location")!).searchParams.get("error"), "access_denied");
  // The same account is offered Allow for what it may use.
  const hubWide = await (await fetch(authorizeUrl(base, params(clientId)), { headers: { Cookie: cookie } })).text();
  assert.match(hubWide, /value="approve"/);
});
