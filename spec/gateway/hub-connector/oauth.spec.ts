// Signing in for `{publicUrl}/mcp` with the official SDK's auth(): the 401 names the
// connector's protected-resource metadata, the token is issued for that resource and works
// there; a token bound to one tool is refused at /mcp, and the /mcp token at a tool route.
import assert from "node:assert/strict";
import { test } from "node:test";
import { auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MemoryProvider } from "../oauth/memory-provider.ts";
import { pkcePair, registerPublic, signIn, token } from "../oauth/harness.ts";
import { PASSWORD, USER, startHub } from "../oauth/hub.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";

const ping = (url: string, token: string): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    }),
  });

test("the SDK's auth() for the /mcp resource, and audience checks both ways", { timeout: 90_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const base = gateway.publicUrl;
  const serverUrl = `${base}/mcp`;
  const provider = new MemoryProvider(REDIRECT, "Connector spec");

  const challenge = await fetch(serverUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(challenge.status, 401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge);
  await challenge.arrayBuffer();
  assert.equal(resourceMetadataUrl?.href, `${base}/.well-known/oauth-protected-resource/mcp`);

  assert.equal(await auth(provider, { serverUrl, resourceMetadataUrl }), "REDIRECT");
  const asked = provider.lastAuthorizationUrl!.searchParams;
  assert.equal(asked.get("resource"), serverUrl);
  const back = await signIn(base, {
    clientId: asked.get("client_id")!,
    challenge: asked.get("code_challenge")!,
    resource: asked.get("resource")!,
    state: asked.get("state")!,
    redirectUri: REDIRECT,
    user: USER,
    password: PASSWORD,
  });
  assert.ok(back.searchParams.get("code"), back.search);
  assert.equal(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: back.searchParams.get("code")! }), "AUTHORIZED");

  const client = new Client({ name: "connector-oauth-spec", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  t.after(() => client.close());
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes("mcpdemo_add"), "every tool of the person through one sign-in");
  const sum = (await client.callTool({ name: "mcpdemo_add", arguments: { a: 2, b: 3 } })) as { content: Array<{ text: string }> };
  assert.equal(sum.content[0]!.text, "5");

  const hubToken = provider.stored!.access_token;
  const onTool = await ping(`${base}/api/mcp/mcpdemo/mcp`, hubToken);
  assert.equal(onTool.status, 401, "a token for /mcp is not a token for one tool's URL");
  await onTool.arrayBuffer();
  const clientId = await registerPublic(base, REDIRECT);
  const { verifier, challenge: pkce } = pkcePair();
  const toolResource = `${base}/api/mcp/mcpdemo/mcp`;
  const code = (await signIn(base, { clientId, challenge: pkce, resource: toolResource, user: USER, password: PASSWORD })).searchParams.get("code")!;
  const issued = await token(base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    resource: toolResource,
  });
  assert.equal(issued.status, 200);
  const toolToken = ((await issued.json()) as { access_token: string }).access_token;
  const works = await ping(toolResource, toolToken);
  assert.equal(works.status, 200, "the tool-bound token works on its tool");
  await works.arrayBuffer();
  const toolBound = await ping(serverUrl, toolToken);
  assert.equal(toolBound.status, 401, "a token bound to one tool is refused at /mcp");
  await toolBound.arrayBuffer();
});
