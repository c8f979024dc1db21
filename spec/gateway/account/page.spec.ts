// The account page over real HTTP on a real gateway (wired as hub_gateway wires it): sign-in
// and back, every action with its POST-redirect-GET, CSRF, and a person acting on another's
// token, connected app or tool session (404, as for an id that does not exist).
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { parseGatewayConfigText } from "../../../lib/gateway/config/gateway-config.ts";
import { gatewayAuthorizationServer } from "../../../lib/gateway/identity/oauth-for-gateway.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { post, rpc } from "../helpers.ts";
import { startHub, PASSWORD, USER } from "../oauth/hub.ts";
import { pkcePair, registerPublic, signIn as oauthSignIn, token as tokenRequest } from "../oauth/harness.ts";
import { PageClient } from "./client.ts";

const BOB_PASSWORD = "bob's own long password";
const INIT = rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } });

async function hub(t: TestContext) {
  const { gateway, dataDir } = await startHub(t);
  const store = new FileRecordStore(dataDir);
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("bob", BOB_PASSWORD, ["staff"]);
  return { base: gateway.publicUrl, store, tokens: new ApiTokens(store, accounts) };
}

/** The ids the page's forms of one action carry, in page order. */
function ids(html: string, action: string): string[] {
  return [...html.matchAll(new RegExp(`name="action" value="${action}"><input type="hidden" name="id" value="([^"]+)"`, "g"))].map((m) => m[1]!);
}

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.arrayBuffer();
  return r.status;
}

/** An OAuth client connected by `user`: its name on the page, and its refresh token. */
async function connectApp(base: string, user: string, password: string, name: string): Promise<{ clientId: string; refresh: string; access: string }> {
  const clientId = await registerPublic(base, "http://127.0.0.1:5555/callback", name);
  const { verifier, challenge } = pkcePair();
  const back = await oauthSignIn(base, { clientId, challenge, user, password });
  const res = await tokenRequest(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: back.searchParams.get("code")!,
    redirect_uri: "http://127.0.0.1:5555/callback",
    code_verifier: verifier,
  });
  const body = (await res.json()) as { refresh_token: string; access_token: string };
  return { clientId, refresh: body.refresh_token, access: body.access_token };
}

test("/account leads through sign-in back to the page, never elsewhere, with the sign-in pages' security headers", async (t) => {
  const { base } = await hub(t);
  const browser = new PageClient(base);
  const start = await browser.get("account?next=https%3A%2F%2Fevil.example%2F");
  assert.equal(start.status, 303);
  assert.equal(start.headers.get("location"), "developer/oauth/account", "a fixed place, whatever the query says");
  const login = await browser.get("developer/oauth/account?then=https%3A%2F%2Fevil.example%2F");
  assert.equal(login.status, 200);
  assert.match(await login.text(), /Your account page lists your tokens, connected apps and tool sessions\. Sign in with your hub account\./);
  const html = await browser.signIn(USER, PASSWORD);
  assert.match(html, /Signed in as <strong>ada<\/strong>/);
  assert.match(html, /You have no API tokens\./);
  // An account sign-in's request can't be turned into a grant at the consent form.
  const other = new PageClient(base);
  const pending = await (await other.get("developer/oauth/account")).text();
  const request = /name="request" value="([^"]+)"/.exec(pending)![1]!;
  const consent = await browser.post("developer/oauth/consent", { request, csrf: "x", decision: "approve" });
  assert.equal(consent.status, 400);
  assert.equal(consent.headers.get("location"), null);
  const page = await browser.get("developer/oauth/account");
  assert.match(page.headers.get("content-security-policy")!, /default-src 'none'.*frame-ancestors 'none'/);
  assert.equal(page.headers.get("x-frame-options"), "DENY");
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.equal(page.headers.get("referrer-policy"), "no-referrer");
  await page.arrayBuffer();
  // Signed in already: /account goes straight to the page.
  assert.equal((await browser.get("account")).headers.get("location"), "developer/oauth/account");
  assert.equal(await status(browser.get("developer/oauth/account")), 200);
  // Without the cookie a POST changes nothing: 401.
  assert.equal(await status(new PageClient(base).post("developer/oauth/account", { action: "create-token", name: "x", expires: "30" })), 401);
});

test("a token made on the page is shown once with a hub_bridge config, listed with its expiry and last use, and revoked", async (t) => {
  const { base, store, tokens } = await hub(t);
  const operatorMade = (await tokens.create(USER))!;
  const browser = new PageClient(base);
  let html = await browser.signIn(USER, PASSWORD);
  assert.match(
    html,
    new RegExp(`<tr><td>\\(no name\\)</td><td><code>${operatorMade.id}</code></td><td>[^<]+</td><td>never</td><td>never</td>`),
    "made by the operator: no name, no expiry",
  );
  const made = await browser.act(html, { action: "create-token", name: "laptop <1>", expires: "30" });
  assert.equal(made.status, 200);
  assert.equal(made.headers.get("cache-control"), "no-store");
  const shown = await made.text();
  const token = /hubmcp_[a-z0-9]{12}_[A-Za-z0-9_-]{43}/.exec(shown)![0];
  assert.match(shown, /shown only this once/);
  assert.match(shown, /Your new token “laptop &#60;1&#62;”/, "the name escaped");
  const config = JSON.parse(/<pre id="bridge">([^<]*)<\/pre>/.exec(shown)![1]!.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c))));
  assert.deepEqual(config.mcpServers.hub.env, { HUB_TOKEN: token, HUB_API: base, HUB_TOOLS: "*" });
  assert.equal((await post(`${base}/mcp`, token, INIT)).status, 200, "the token works on /mcp");
  html = await browser.page();
  assert.ok(!html.includes(token), "never shown again");
  const row = /<tr><td>laptop &#60;1&#62;<\/td><td><code>([a-z0-9]{12})<\/code><\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/.exec(html)!;
  const expires = Date.parse(row[3]!.replace(" UTC", "Z").replace(" ", "T"));
  assert.ok(Math.abs(expires - (Date.now() + 30 * 86_400_000)) < 5 * 60_000, "30 days from now");
  assert.deepEqual(ids(html, "revoke-token"), [row[1], operatorMade.id], "newest first");
  // Last use is written beside the token without holding up the request: the page shows it once written.
  const lastUsed = async (): Promise<string> => /<tr><td>laptop &#60;1&#62;<\/td>(?:<td>.*?<\/td>){3}<td>([^<]*)<\/td>/.exec(await browser.page())![1]!;
  for (let i = 0; i < 10_000 && (await store.get("api-token-use", row[1]!)) === undefined; i++) await new Promise(setImmediate);
  assert.match(await lastUsed(), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, "last used: a time");
  // Bad values are the page again with the reason, and nothing made.
  for (const fields of [{ name: "   ", expires: "30" }, { expires: "30" }, { name: "x".repeat(65), expires: "30" }] as Array<Record<string, string>>) {
    const unnamed = await browser.act(html, { action: "create-token", ...fields });
    assert.equal(unnamed.status, 400);
    assert.match(await unnamed.text(), /Give the token a name of 1 to 64 characters\./);
  }
  const forever = await browser.act(html, { action: "create-token", name: "forever", expires: "36500" });
  assert.equal(forever.status, 400);
  assert.match(await forever.text(), /Choose one of the offered lifetimes\./);
  const revoked = await browser.act(html, { action: "revoke-token", id: row[1]! });
  assert.equal(revoked.status, 303);
  assert.equal(revoked.headers.get("location"), "account?done=token-revoked");
  html = await browser.page();
  assert.match(await (await browser.get("developer/oauth/account?done=token-revoked")).text(), /The token is revoked\./);
  assert.doesNotMatch(await (await browser.get("developer/oauth/account?done=%3Cscript%3E")).text(), /class="notice"|&#60;script/, "only known notices");
  assert.equal((await post(`${base}/mcp`, token, INIT)).status, 401, "revoked: refused");
  assert.deepEqual(ids(html, "revoke-token"), [operatorMade.id]);
  assert.equal(await status(browser.act(html, { action: "frobnicate" })), 400);
  assert.equal(await status(browser.post("developer/oauth/account", { action: "a", id: "1" }).then((r) => r)), 403, "no CSRF token");
});

test("a connected app is listed by name and revoking it ends its refresh and access tokens", async (t) => {
  const { base, store } = await hub(t);
  const app = await connectApp(base, USER, PASSWORD, "Lab notebook");
  // Grants made before grants kept the client's name: the registration's, or the client id once that is gone.
  const older = await connectApp(base, USER, PASSWORD, "Older app");
  const gone = await connectApp(base, USER, PASSWORD, "Gone app");
  for (const { id, value } of await store.list<{ client_id: string; client_name?: string }>("oauth-grants")) {
    if (value.client_id === older.clientId || value.client_id === gone.clientId) await store.put("oauth-grants", id, { ...value, client_name: undefined });
  }
  await store.delete("oauth-clients", gone.clientId);
  const browser = new PageClient(base);
  let html = await browser.signIn(USER, PASSWORD);
  assert.match(html, /<tr><td>Lab notebook<\/td>/);
  assert.match(html, /<tr><td>Older app<\/td>/);
  assert.match(html, new RegExp(`<tr><td>${gone.clientId}</td>`));
  const grant = /<tr><td>Lab notebook<\/td>.*?name="id" value="([^"]+)"/.exec(html)![1]!;
  const lastUsed = (page: string): string => /<tr><td>Lab notebook<\/td><td>[^<]+<\/td><td>([^<]+)<\/td>/.exec(page)![1]!;
  assert.equal(lastUsed(html), "—", "not used yet");
  // Its access token serves a request: noted beside the grant without holding the request up.
  assert.equal((await post(`${base}/mcp`, app.access, INIT)).status, 200);
  for (let i = 0; i < 10_000 && (await store.get("oauth-grant-uses", grant)) === undefined; i++) await new Promise(setImmediate);
  html = await browser.page();
  assert.match(lastUsed(html), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  const res = await browser.act(html, { action: "revoke-app", id: grant! });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "account?done=app-revoked");
  html = await browser.page();
  assert.doesNotMatch(html, /Lab notebook/);
  assert.equal(ids(html, "revoke-app").length, 2);
  const refreshed = await tokenRequest(base, { grant_type: "refresh_token", client_id: app.clientId, refresh_token: app.refresh });
  assert.equal(refreshed.status, 400);
  assert.equal(((await refreshed.json()) as { error: string }).error, "invalid_grant");
  assert.equal((await post(`${base}/mcp`, app.access, INIT)).status, 401);
});

test("CSRF and another person's ids: 403 without the page's token, 404 for what is not one's own, and nothing of the other changes", {
  timeout: 120_000,
}, async (t) => {
  const { base, tokens } = await hub(t);
  const bobToken = (await tokens.create("bob", { name: "bob's" }))!;
  const bobApp = await connectApp(base, "bob", BOB_PASSWORD, "Bob's app");
  // Bob's tool session: his token on a tool starts one.
  assert.equal((await post(`${base}/api/mcp/mcpdemo/mcp`, bobToken.token, INIT)).status, 200);
  const ada = new PageClient(base);
  const bob = new PageClient(base);
  const adaHtml = await ada.signIn(USER, PASSWORD);
  const bobHtml = await bob.signIn("bob", BOB_PASSWORD);
  const [bobGrant] = ids(bobHtml, "revoke-app");
  const [bobSession] = ids(bobHtml, "stop-session");
  assert.deepEqual(ids(bobHtml, "revoke-token"), [bobToken.id]);
  assert.ok(bobGrant && bobSession, "bob sees his own");
  assert.deepEqual([ids(adaHtml, "revoke-token"), ids(adaHtml, "revoke-app"), ids(adaHtml, "stop-session")], [[], [], []], "ada sees none of bob's");
  assert.match(bobHtml, /<tr><td>mcpdemo<\/td><td>default<\/td>/);

  // CSRF: no token, bob's token, a token for another browser of ada's.
  assert.equal(await status(ada.post("developer/oauth/account", { action: "revoke-token", id: bobToken.id })), 403);
  assert.equal(await status(bob.act(adaHtml, { action: "create-token", name: "planted", expires: "30" })), 403);
  const adaElsewhere = new PageClient(base);
  await adaElsewhere.signIn(USER, PASSWORD);
  assert.equal(await status(adaElsewhere.act(adaHtml, { action: "create-token", name: "planted", expires: "30" })), 403);

  const refused = async (action: string, id: string): Promise<string> => {
    const res = await ada.act(adaHtml, { action, id });
    assert.equal(res.status, 404, `${action} of another's`);
    return res.text();
  };
  const unknown = await refused("revoke-token", "zzzzzzzzzzzz");
  assert.equal(await refused("revoke-token", bobToken.id), unknown, "another's id answers as one that does not exist");
  await refused("revoke-app", bobGrant!);
  await refused("revoke-app", "x".repeat(24));
  await refused("stop-session", bobSession!);
  await refused("stop-session", "0".repeat(32));
  await refused("stop-session", "not an instance");

  assert.equal((await post(`${base}/mcp`, bobToken.token, INIT)).status, 200, "bob's token still works");
  const refreshed = await tokenRequest(base, { grant_type: "refresh_token", client_id: bobApp.clientId, refresh_token: bobApp.refresh });
  assert.equal(refreshed.status, 200, "bob's app still refreshes");
  const after = await bob.page();
  assert.deepEqual(ids(after, "stop-session"), [bobSession], "bob's tool session still runs");
  assert.match(after, /<tr><td>Bob&#39;s app<\/td><td>[^<]+<\/td><td>\d{4}-[^<]+<\/td>/, "last used: the refresh just now");

  // Bob stops his own session: it goes from the page and from the gateway.
  const stopped = await bob.act(after, { action: "stop-session", id: bobSession! });
  assert.equal(stopped.status, 303);
  assert.equal(stopped.headers.get("location"), "account?done=session-stopped");
  assert.match(await bob.page(), /No tool is running for you\./);
  const health = (await (await fetch(`${base}/healthz`)).json()) as { toolSessions: number };
  assert.equal(health.toolSessions, 0);
});

test("the page is rate limited per address: 429 with Retry-After, before any work", async (t) => {
  const { base } = await hub(t);
  const browser = new PageClient(base);
  let last: Response | undefined;
  for (let i = 0; i < 61; i++) {
    last = await browser.get("developer/oauth/account");
    await last.arrayBuffer();
    if (last.status === 429) break;
  }
  assert.equal(last!.status, 429);
  assert.match(last!.headers.get("retry-after")!, /^\d+$/);
  assert.equal(await status(browser.post("developer/oauth/account", { action: "create-token" })), 429);
});

test("a person a front proxy signed in (trustedUserHeader) gets the page and its forms work: the page sets the browser cookie the CSRF token is bound to", async (t) => {
  const fixtures = fileURLToPath(new URL("../../../fixtures/gateway/", import.meta.url));
  const config = parseGatewayConfigText(await readFile(`${fixtures}demo.json`, "utf8"), fixtures);
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  await accounts.add(USER, PASSWORD, []);
  let publicUrl = "http://127.0.0.1";
  const authorizationServer = gatewayAuthorizationServer({
    config,
    settings: { ...config.oauth, trustedUserHeader: "x-forwarded-user" },
    store,
    accounts,
    apiTokens: new ApiTokens(store, accounts),
    publicUrl: () => publicUrl,
  });
  const gateway = await startGateway({ config, store, authorizationServer });
  publicUrl = gateway.publicUrl;
  t.after(() => gateway.close());
  const browser = new PageClient(publicUrl, { "X-Forwarded-User": USER });
  const html = await browser.page();
  assert.match(html, /Signed in as <strong>ada<\/strong>/, "no sign-in page: the proxy vouched");
  assert.ok(browser.cookie, "the page set the browser cookie");
  const made = await browser.act(html, { action: "create-token", name: "via proxy", expires: "7" });
  assert.equal(made.status, 200);
  assert.match(await made.text(), /hubmcp_[a-z0-9]{12}_/);
});
