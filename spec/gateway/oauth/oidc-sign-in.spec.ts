// Sign-in through the hub's OpenID provider, against a real one (oidc-provider on loopback):
// the account made at first sign-in with the provider's groups, a token that works for a tool
// and for the hub connector, groups refreshed at the next sign-in, key rotation, `user remove`
// ending it all, existing-only accounts, passwords off, and an unreachable provider.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { removeUser } from "../../../lib/gateway/cli/remove-user.ts";
import type { Tokens } from "./harness.ts";
import { HttpBrowser } from "./http-browser.ts";
import { documentedOAuth } from "./identity-docs.ts";
import { ping, signInThroughProvider, startIdentityHub, walkSignIn, type Landing } from "./oidc-flow.ts";

function tokensOf(result: Tokens | Landing): Tokens {
  if (!("access_token" in result)) throw new Error(`sign-in stopped at a ${result.status} page`);
  return result;
}

test("a person signs in at the hub's provider: account made, groups from the claim, tokens for a tool and /mcp", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t);
  const base = hub.gateway.publicUrl;
  hub.provider.groups.set("grace", ["staff", "not a group!"]);
  const tool = `${base}/api/mcp/private/mcp`;
  const forTool = tokensOf(await signInThroughProvider(hub, "grace", tool));
  assert.equal(await ping(tool, forTool.access_token), 200);
  const accounts = new StoreAccountDirectory(hub.store);
  assert.deepEqual(await accounts.groupsOf("grace"), ["staff"], "groups from the claim, invalid names dropped");
  assert.equal(await accounts.verifyPassword("grace", "none"), null, "an account made by sign-in has no password");
  const forHub = tokensOf(await signInThroughProvider(hub, "grace", `${base}/mcp`));
  assert.equal(await ping(`${base}/mcp`, forHub.access_token), 200);

  // The group goes at the provider: the next sign-in says so, and the tool is closed to her.
  hub.provider.groups.set("grace", []);
  const again = await signInThroughProvider(hub, "grace", tool);
  assert.ok(!("access_token" in again) && again.status === 403, "no consent offered without the group");
  assert.match(again.html, /no access/i);
  assert.deepEqual(await accounts.groupsOf("grace"), []);

  // Removing the person ends what the sign-ins produced.
  const removed = await removeUser(hub.store, "grace");
  assert.ok(removed.grants >= 2);
  assert.equal(await ping(`${base}/mcp`, forHub.access_token), 401);
});

test("docs/gateway.md's identity section, as written: prefix groups, accounts made, passwords off", { timeout: 60_000 }, async (t) => {
  const { issuer: _issuer, clientId: _clientId, clientSecretFile: _file, ...documented } = documentedOAuth<Record<string, unknown>>("identity");
  const hub = await startIdentityHub(t, documented);
  hub.provider.groups.set("grace", ["mcp-staff", "other"]);
  const browser = new HttpBrowser();
  const tool = `${hub.gateway.publicUrl}/api/mcp/private/mcp`;
  const tokens = tokensOf(await signInThroughProvider(hub, "grace", tool, browser));
  assert.equal(await ping(tool, tokens.access_token), 200);
  assert.deepEqual(await new StoreAccountDirectory(hub.store).groupsOf("grace"), ["staff"]);
  const login = browser.visited.find((u) => u.pathname === "/developer/oauth/authorize");
  assert.ok(login);
  const page = await (await new HttpBrowser().request(login)).text();
  assert.match(page, /Sign in with Example Hub/);
  assert.doesNotMatch(page, /type="password"/);
});

test("the account page signs people in through the provider too", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t, { passwords: false });
  const browser = new HttpBrowser();
  const landing = await walkSignIn(browser, `${hub.gateway.publicUrl}/account`, "grace");
  assert.equal(landing.status, 200);
  assert.match(landing.html, /grace/);
  assert.ok(
    browser.visited.some((u) => u.origin === hub.provider.issuer),
    "by way of the provider",
  );
  assert.ok(browser.visited.at(-1)!.pathname.endsWith("/developer/oauth/account"));
});

test("the provider rotates its keys: one JWKS fetch finds the new key, sign-in carries on", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t);
  const browser = new HttpBrowser();
  tokensOf(await signInThroughProvider(hub, "ada", undefined, browser));
  const before = hub.provider.jwksFetches;
  hub.provider.rotate("key-2");
  tokensOf(await signInThroughProvider(hub, "ada", undefined, new HttpBrowser()));
  assert.equal(hub.provider.jwksFetches, before + 1, "the unknown kid fetched the JWKS once");
  tokensOf(await signInThroughProvider(hub, "ada", undefined, new HttpBrowser()));
  assert.equal(hub.provider.jwksFetches, before + 1, "the new key is kept");
});

test("existing-only: a person without an account is told so; an existing account signs in", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t, { accounts: "existing" });
  const refused = await signInThroughProvider(hub, "mallory");
  assert.ok(!("access_token" in refused));
  assert.equal(refused.status, 403);
  assert.match(refused.html, /no account on this hub/);
  assert.equal(await new StoreAccountDirectory(hub.store).groupsOf("mallory"), null);
  tokensOf(await signInThroughProvider(hub, "ada"));
});

test("passwords off: the sign-in page offers the provider only, and a posted password is refused", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t, { passwords: false });
  const browser = new HttpBrowser();
  const landing = await signInThroughProvider(hub, "ada", undefined, browser);
  tokensOf(landing);
  const base = hub.gateway.publicUrl;
  const { registerPublic, authorizeUrl, pkcePair } = await import("./harness.ts");
  const clientId = await registerPublic(base);
  const page = await new HttpBrowser().request(
    authorizeUrl(base, { response_type: "code", client_id: clientId, code_challenge: pkcePair().challenge, code_challenge_method: "S256" }),
  );
  const html = await page.text();
  assert.doesNotMatch(html, /type="password"/);
  assert.match(html, /Sign in with Spec Hub/);
  const post = await browser.request(`${base}/developer/oauth/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request: /request=([\w-]+)/.exec(html)![1]!, csrf: "x", username: "ada", password: "correct horse battery" }),
  });
  assert.equal(post.status, 403);
  assert.match(await post.text(), /identity provider only/);
});

test("an unreachable provider is a clear 502 page, at the way out and at the way back", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t);
  hub.provider.down = true;
  const out = await signInThroughProvider(hub, "ada");
  assert.ok(!("access_token" in out));
  assert.equal(out.status, 502);
  assert.match(out.html, /Spec Hub can&#39;t be reached just now/);

  // Up for the way out, down when the hub redeems the code.
  hub.provider.down = false;
  const browser = new HttpBrowser();
  const base = hub.gateway.publicUrl;
  const { registerPublic, authorizeUrl, pkcePair } = await import("./harness.ts");
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: await registerPublic(base),
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  });
  let back: URL | undefined;
  const landing = await walkSignInUntilCallback(browser, url, (u) => (back = u));
  assert.ok(back, landing);
  hub.provider.down = true;
  const res = await browser.request(back);
  assert.equal(res.status, 502);
  assert.match(await res.text(), /can&#39;t be reached/);
});

test("the way back is this browser's, once: another browser, a replay, a cancel, a name the hub can't use", { timeout: 60_000 }, async (t) => {
  const hub = await startIdentityHub(t);
  const base = hub.gateway.publicUrl;
  const { registerPublic, authorizeUrl, pkcePair } = await import("./harness.ts");
  const start = async (browser: HttpBrowser, login = "ada"): Promise<URL> => {
    const url = authorizeUrl(base, {
      response_type: "code",
      client_id: await registerPublic(base),
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    });
    let back: URL | undefined;
    await walkSignInUntilCallback(browser, url, (u) => (back = u), login);
    assert.ok(back);
    return back;
  };
  const browser = new HttpBrowser();
  const back = await start(browser);
  const elsewhere = await new HttpBrowser().request(back);
  assert.equal(elsewhere.status, 400);
  assert.match(await elsewhere.text(), /started in another browser/);
  assert.equal((await browser.request(back)).status, 303);
  const replay = await browser.request(back);
  assert.equal(replay.status, 400, "a callback URL works once");
  assert.match(await replay.text(), /Sign-in expired/);

  const other = new HttpBrowser();
  const cancelled = await start(other);
  cancelled.searchParams.delete("code");
  cancelled.searchParams.set("error", "access_denied");
  const res = await other.request(cancelled);
  assert.equal(res.status, 403);
  assert.match(await res.text(), /Spec Hub did not sign you in/);

  // A code the provider never issued: it refuses, and the person is told the answer didn't verify.
  const forged = new HttpBrowser();
  const withBadCode = await start(forged);
  withBadCode.searchParams.set("code", "not-a-code-the-provider-issued");
  const badCode = await forged.request(withBadCode);
  assert.equal(badCode.status, 403);
  assert.match(await badCode.text(), /could not be verified/);

  const badName = await start(new HttpBrowser(), "not a name!");
  const refused = await new HttpBrowser().request(badName);
  assert.equal(refused.status, 400, "and from another browser, refused before the name is even read");
  const same = new HttpBrowser();
  const named = await same.request(await start(same, "not a name!"));
  assert.equal(named.status, 403);
  assert.match(await named.text(), /can&#39;t be used on this hub/);
  assert.equal((await fetch(`${base}/developer/oauth/upstream?request=short`)).status, 400);

  // Starting sign-ins is limited per address like authorization requests: 60 a minute.
  const request = "A".repeat(43);
  const statuses: number[] = [];
  for (let i = 0; i < 62; i++) {
    const res = await fetch(`${base}/developer/oauth/upstream?request=${request}`, { redirect: "manual" });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  assert.equal(statuses.at(-1), 429);
});

/** The walk, stopped at the hub's callback so a spec can act before the hub redeems the code. */
async function walkSignInUntilCallback(browser: HttpBrowser, url: string, seen: (u: URL) => void, login = "ada"): Promise<string> {
  let step = await browser.follow(url);
  for (let i = 0; i < 6; i++) {
    const html = await step.res.text();
    const stop = (u: URL): boolean => u.pathname.endsWith("/upstream/callback") && (seen(u), true);
    const link = /id="provider" href="([^"]*)"/.exec(html);
    if (link) step = await browser.follow(new URL(link[1]!.replace(/&#38;/g, "&"), step.url), {}, stop);
    else if (html.includes('value="login"')) step = await browser.submit({ url: step.url, html }, { login, password: "any" }, stop);
    else if (html.includes('value="consent"')) step = await browser.submit({ url: step.url, html }, {}, stop);
    else return html;
    if (step.url.pathname.endsWith("/upstream/callback")) return "";
  }
  return "round in circles";
}
