// The official TypeScript SDK client signs in to the hub as MCP clients do: 401 → protected
// resource metadata → authorization server metadata → registration → authorize → login and
// consent in headless Chromium → token → tools/call; then a refresh, and the old token's end.
// And the flow docs/clients.md shows a program: connect, UnauthorizedError, finishAuth, reconnect.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { UnauthorizedError, auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { browserSkipReason, launchBrowser, outputDir, signInWithBrowser } from "./browser.ts";
import { PASSWORD, USER, callbackReceiver, startHub } from "./hub.ts";
import { MemoryProvider } from "./memory-provider.ts";

test("the SDK's OAuth flow against the hub, signing in with a real browser, then tools/call and refresh", {
  skip: browserSkipReason(),
  timeout: 120_000,
}, async (t) => {
  await mkdir(outputDir(), { recursive: true });
  const { gateway } = await startHub(t);
  const serverUrl = `${gateway.publicUrl}/api/mcp/mcpdemo/mcp`;
  const callback = await callbackReceiver(t);
  const provider = new MemoryProvider(callback.url);

  const challenge = await fetch(serverUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(challenge.status, 401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge);
  await challenge.arrayBuffer();
  assert.ok(resourceMetadataUrl);

  assert.equal(await auth(provider, { serverUrl, resourceMetadataUrl }), "REDIRECT");
  assert.ok(provider.client?.client_id, "registered dynamically");
  const authorizationUrl = provider.lastAuthorizationUrl!;
  assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${gateway.publicUrl}/developer/oauth/authorize`);
  assert.equal(authorizationUrl.searchParams.get("resource"), serverUrl);

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
  const arrived = callback.next();
  await signInWithBrowser(page, authorizationUrl.href, { username: USER, password: PASSWORD, screenshots: { login: "login.png", consent: "consent.png" } });
  const query = await arrived;
  // The same pages at desktop width, for a person to look at.
  const desktop = await browser.newPage();
  await desktop.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
  await desktop.goto(authorizationUrl.href, { waitUntil: "load" });
  await desktop.screenshot({ path: join(outputDir(), "consent-desktop.png") });
  assert.equal(query.get("state"), "sdk-state");
  assert.equal(query.get("iss"), `${gateway.publicUrl}/authorize`);
  const code = query.get("code");
  assert.ok(code);

  assert.equal(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: code }), "AUTHORIZED");
  const first = provider.stored!;
  assert.ok(first.access_token && first.refresh_token);

  const client = new Client({ name: "oauth-spec", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  await client.connect(transport);
  t.after(() => client.close());
  const callAdd = async (): Promise<{ content: Array<{ type: string; text: string }>; isError?: boolean }> =>
    (await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  const result = await callAdd();
  assert.notEqual(result.isError, true);
  assert.match(result.content[0]!.text, /5/);
  const sessionId = transport.sessionId;

  // Refresh: auth() with a stored refresh token rotates it without the browser.
  assert.equal(await auth(provider, { serverUrl, resourceMetadataUrl }), "AUTHORIZED");
  const second = provider.stored!;
  assert.notEqual(second.access_token, first.access_token);
  assert.notEqual(second.refresh_token, first.refresh_token);
  // The MCP session belongs to the user, not to the token bytes: it carries on with the new token.
  const again = await callAdd();
  assert.match(again.content[0]!.text, /5/);
  assert.equal(transport.sessionId, sessionId);

  // A token bound to this tool is refused by another tool.
  const other = await fetch(`${gateway.publicUrl}/api/mcp/conformance/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${second.access_token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  assert.equal(other.status, 401);
  await other.arrayBuffer();
});

test("the documented sign-in of a program: connect, UnauthorizedError, browser, finishAuth, reconnect", {
  skip: browserSkipReason(),
  timeout: 120_000,
}, async (t) => {
  const { gateway } = await startHub(t);
  const toolUrl = new URL(`${gateway.publicUrl}/api/mcp/mcpdemo/mcp`);
  const callback = await callbackReceiver(t);
  const provider = new MemoryProvider(callback.url, "SDK docs client");
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: "my-lab-script", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(toolUrl, { authProvider: provider }));
    return client;
  };

  await assert.rejects(connect(), UnauthorizedError);
  const authorizationUrl = provider.lastAuthorizationUrl;
  assert.ok(authorizationUrl, "the SDK registered and sent the person to the sign-in page");
  const browser = await launchBrowser(t);
  const arrived = callback.next();
  await signInWithBrowser(await browser.newPage(), authorizationUrl.href, { username: USER, password: PASSWORD });
  const code = (await arrived).get("code");
  assert.ok(code);

  await new StreamableHTTPClientTransport(toolUrl, { authProvider: provider }).finishAuth(code);
  assert.ok(provider.stored?.access_token, "finishAuth saved the tokens");
  const client = await connect();
  t.after(() => client.close());
  const result = (await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })) as { content: Array<{ type: string; text: string }> };
  assert.match(result.content[0]!.text, /5/);
});
