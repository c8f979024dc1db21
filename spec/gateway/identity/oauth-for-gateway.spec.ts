import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_OAUTH_SETTINGS } from "../../../lib/gateway/oauth/gateway-settings.ts";
import { forwardedAddress, gatewayAuthorizationServer } from "../../../lib/gateway/identity/oauth-for-gateway.ts";
import { toolOfResource } from "../../../lib/gateway/oauth/resources.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import type { ToolSpec } from "../../../lib/gateway/config/gateway-config.ts";
import { TestAccounts, listen, obtainTokens, pkcePair, registerPublic, signIn } from "../oauth/harness.ts";
import { createServer } from "node:http";

test("toolOfResource reads the tool out of a resource of this hub only", () => {
  assert.equal(toolOfResource("https://hub", "https://hub/api/mcp/demo/mcp"), "demo");
  assert.equal(toolOfResource("https://hub", "https://hub/api/mcp/demo"), "demo");
  assert.equal(toolOfResource("https://hub", "https://other/api/mcp/demo/mcp"), undefined);
  assert.equal(toolOfResource("https://hub", "https://hub/api/mcp/"), undefined);
});

test("as the gateway runs it: tool groups decide consent; unknown tools are refused; registration tokens come from the gateway", async (t) => {
  const tool = (groups: string[]): ToolSpec => ({ groups }) as unknown as ToolSpec;
  let publicUrl = "http://127.0.0.1";
  const as = gatewayAuthorizationServer({
    config: { tools: { open: tool([]), staffonly: tool(["staff"]), adminsonly: tool(["admins"]) } },
    settings: { ...DEFAULT_OAUTH_SETTINGS, registrationAllowlist: ["https://portal.example/"], trustedUserHeader: "X-User" },
    store: new MemoryRecordStore(),
    accounts: new TestAccounts(),
    apiTokens: { verify: async () => null },
    publicUrl: () => publicUrl,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  publicUrl = await listen(
    createServer((req, res) => void as.handle(req, res).then((ok) => ok || res.writeHead(404).end())),
    t,
  );
  const clientId = await registerPublic(publicUrl);
  for (const [name, allowed] of [
    ["open", true],
    ["staffonly", true],
    ["adminsonly", false],
    ["missing", false],
  ] as const) {
    const back = await signIn(publicUrl, { clientId, challenge: pkcePair().challenge, resource: `${publicUrl}/api/mcp/${name}/mcp` });
    assert.equal(back.searchParams.has("code"), allowed, name);
  }
  const { tokens } = await obtainTokens(publicUrl);
  assert.ok(await as.verifier.verify(tokens.access_token, `${publicUrl}/api/mcp/open/mcp`));
  const portal = await fetch(`${publicUrl}/authorize/register`, { method: "POST", body: JSON.stringify({ redirect_uris: ["https://portal.example/cb"] }) });
  assert.equal(portal.status, 201, "the configured allowlist replaces the default one");
  await portal.arrayBuffer();
  const claude = await fetch(`${publicUrl}/authorize/register`, {
    method: "POST",
    body: JSON.stringify({ redirect_uris: ["https://claude.ai/api/mcp/auth_callback"] }),
  });
  assert.equal(claude.status, 401);
  await claude.arrayBuffer();
});

test("behind a proxy, rate limits count the address the proxy forwarded", () => {
  const address = forwardedAddress("x-forwarded-for");
  const req = (headers: Record<string, string | string[]>): Parameters<typeof address>[0] =>
    ({ headers, socket: { remoteAddress: "10.0.0.1" } }) as unknown as Parameters<typeof address>[0];
  assert.equal(address(req({ "x-forwarded-for": "6.6.6.6, 203.0.113.7" })), "203.0.113.7");
  assert.equal(address(req({ "x-forwarded-for": ["1.1.1.1", "203.0.113.8"] })), "203.0.113.8");
  assert.equal(address(req({})), "10.0.0.1");
});
