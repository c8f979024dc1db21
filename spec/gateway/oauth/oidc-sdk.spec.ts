// An MCP client signing in through the hub's OpenID provider: the official TypeScript SDK's
// auth() discovers the hub from a 401, registers, and sends the person to the hub's sign-in
// page; from there to the provider's login (a real oidc-provider, its forms posted over plain
// HTTP), back to the hub's consent and to the client's loopback redirect; the token it gets
// calls a tool, and a second sign-in the hub connector `/mcp`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callbackReceiver } from "./hub.ts";
import { HttpBrowser } from "./http-browser.ts";
import { MemoryProvider } from "./memory-provider.ts";
import { startIdentityHub, walkSignIn } from "./oidc-flow.ts";

test("the SDK's auth() lands at the provider's login and comes back with tokens for a tool and for /mcp", { timeout: 90_000 }, async (t) => {
  const hub = await startIdentityHub(t);
  hub.provider.groups.set("grace", ["staff"]);
  const callback = await callbackReceiver(t);
  const browser = new HttpBrowser();
  const signIn = async (serverUrl: string): Promise<MemoryProvider> => {
    const provider = new MemoryProvider(callback.url, "SDK identity client");
    assert.equal(await auth(provider, { serverUrl }), "REDIRECT");
    const authorizationUrl = provider.lastAuthorizationUrl!;
    assert.equal(authorizationUrl.pathname, "/developer/oauth/authorize");
    const arrived = callback.next();
    const landing = await walkSignIn(browser, authorizationUrl.href, "grace", callback.url);
    assert.ok(landing.code, `the walk ended at a ${landing.status} page`);
    // The walk stopped at the redirect; the client's own page receives it as a browser would deliver it.
    await (await fetch(`${callback.url}?code=${encodeURIComponent(landing.code)}&state=sdk-state`)).arrayBuffer();
    const query = await arrived;
    assert.equal(await auth(provider, { serverUrl, authorizationCode: query.get("code")! }), "AUTHORIZED");
    return provider;
  };
  const call = async (url: string, provider: MemoryProvider, tool: string): Promise<string> => {
    const client = new Client({ name: "identity-spec", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    t.after(() => client.close());
    if (tool === "list") return (await client.listTools()).tools.map((x) => x.name).join(",");
    const result = (await client.callTool({ name: tool, arguments: { a: 2, b: 3 } })) as { content: Array<{ text: string }> };
    return result.content[0]!.text;
  };

  const toolUrl = `${hub.gateway.publicUrl}/api/mcp/private/mcp`;
  const forTool = await signIn(toolUrl);
  const atProvider = browser.visited.filter(
    (u) => u.origin === hub.provider.issuer && u.pathname.startsWith("/interaction/") && u.pathname.split("/").length === 3,
  );
  assert.ok(atProvider.length > 0, "the person was at the provider's login page");
  assert.match(await call(toolUrl, forTool, "add"), /5/);
  // The second sign-in finds the provider's session: no login form, straight back.
  const hubUrl = `${hub.gateway.publicUrl}/mcp`;
  const forHub = await signIn(hubUrl);
  assert.notEqual(forHub.stored?.access_token, forTool.stored?.access_token);
  assert.ok((await call(hubUrl, forHub, "list")).length > 0, "the connector lists grace's tools");
});
