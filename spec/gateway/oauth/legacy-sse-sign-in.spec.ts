// OAuth for a legacy SSE client, as `mcp-remote --transport sse-only` does it: the 401 on
// `…/sse` leads to metadata whose `resource` is that URL (SDK clients refuse one their URL
// is not under), the token is requested for it, and that token opens the standard HTTP+SSE
// transport through the gateway to a real start_mcp, and works on `…/mcp` too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { pkcePair, registerPublic, signIn, token } from "./harness.ts";
import { PASSWORD, startHub, USER } from "./hub.ts";

test("a token obtained for …/sse opens the legacy transport and serves …/mcp", { timeout: 90_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const sseUrl = `${gateway.publicUrl}/api/mcp/mcpdemo/sse`;
  const challenge = await fetch(sseUrl, { headers: { accept: "text/event-stream" } });
  assert.equal(challenge.status, 401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge);
  await challenge.arrayBuffer();
  const metadata = (await (await fetch(resourceMetadataUrl!)).json()) as { resource: string; authorization_servers: string[] };
  assert.equal(metadata.resource, sseUrl);
  assert.ok(checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(sseUrl), configuredResource: metadata.resource }));

  const redirect = "http://127.0.0.1:5555/callback";
  const clientId = await registerPublic(gateway.publicUrl, redirect);
  const { verifier, challenge: pkce } = pkcePair();
  const back = await signIn(gateway.publicUrl, { clientId, challenge: pkce, resource: metadata.resource, user: USER, password: PASSWORD });
  const res = await token(gateway.publicUrl, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: back.searchParams.get("code")!,
    redirect_uri: redirect,
    code_verifier: verifier,
    resource: metadata.resource,
  });
  assert.equal(res.status, 200);
  const { access_token } = (await res.json()) as { access_token: string };
  const bearer = { Authorization: `Bearer ${access_token}` };

  const client = new Client({ name: "legacy-oauth", version: "1" });
  await client.connect(new SSEClientTransport(new URL(sseUrl), { requestInit: { headers: bearer } }));
  t.after(() => client.close());
  assert.deepEqual((await client.callTool({ name: "add", arguments: { a: 20, b: 22 } })).content, [{ type: "text", text: "42" }]);

  const ping = await fetch(`${gateway.publicUrl}/api/mcp/mcpdemo/mcp`, {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  assert.equal(ping.status, 200);
  assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: 1, result: {} });
});
