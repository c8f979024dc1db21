import assert from "node:assert/strict";
import { test } from "node:test";
import { audienceCovers } from "../../../lib/gateway/oauth/verifier.ts";
import { obtainTokens, startAuthorizationServer } from "./harness.ts";

test("a token for one tool is refused by another; a hub-wide token serves every tool", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const demo = `${base}/api/mcp/mcpdemo/mcp`;
  const { tokens: toolTokens } = await obtainTokens(base, demo);
  assert.equal((await server.verifier.verify(toolTokens.access_token, demo))?.audience, demo);
  assert.ok(await server.verifier.verify(toolTokens.access_token, `${base}/api/mcp/mcpdemo/tools/echo`));
  assert.equal(await server.verifier.verify(toolTokens.access_token, `${base}/api/mcp/other/mcp`), null);
  assert.equal(await server.verifier.verify(toolTokens.access_token, base), null);
  const { tokens: hubTokens } = await obtainTokens(base);
  const principal = await server.verifier.verify(hubTokens.access_token, `${base}/api/mcp/other/mcp`);
  assert.deepEqual(principal, { user: "ada", groups: ["staff"], kind: "oauth" });
});

test("an expired token is refused (injected clock)", async (t) => {
  const { base, server, clock } = await startAuthorizationServer(t);
  const { tokens } = await obtainTokens(base);
  clock.now += 3599_000;
  assert.ok(await server.verifier.verify(tokens.access_token, base));
  clock.now += 1000;
  assert.equal(await server.verifier.verify(tokens.access_token, base), null);
});

test("a tampered token, a token of another hub and garbage are refused without throwing", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const other = await startAuthorizationServer(t);
  const { tokens } = await obtainTokens(base);
  const [h, p, s] = tokens.access_token.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as Record<string, unknown>;
  const raised = Buffer.from(JSON.stringify({ ...claims, sub: "root" })).toString("base64url");
  assert.equal(await server.verifier.verify(`${h}.${raised}.${s}`, base), null);
  assert.equal(await server.verifier.verify(`${h}.${p}.${s.slice(1)}`, base), null);
  const foreign = await obtainTokens(other.base);
  assert.equal(await server.verifier.verify(foreign.tokens.access_token, base), null);
  for (const junk of ["", "Bearer", "a.b.c", "x".repeat(10_000), undefined as unknown as string]) {
    assert.equal(await server.verifier.verify(junk, base), null);
  }
});

test("a deleted account's token stops working; groups are read as they are now", async (t) => {
  const { base, server, accounts } = await startAuthorizationServer(t);
  const { tokens } = await obtainTokens(base);
  accounts.users.get("ada")!.groups = ["staff", "admins"];
  assert.deepEqual((await server.verifier.verify(tokens.access_token, base))?.groups, ["staff", "admins"]);
  accounts.users.delete("ada");
  assert.equal(await server.verifier.verify(tokens.access_token, base), null);
});

test("audienceCovers: same resource, or any path of the same tool", () => {
  const hub = "https://hub.example";
  assert.equal(audienceCovers(hub, `${hub}/api/mcp/a/mcp`, `${hub}/api/mcp/a/mcp/`), true);
  assert.equal(audienceCovers(hub, `${hub}/api/mcp/a/mcp`, `${hub}/api/mcp/a`), true);
  assert.equal(audienceCovers(hub, `${hub}/api/mcp/a/mcp`, `${hub}/api/mcp/ab/mcp`), false);
  assert.equal(audienceCovers(hub, `${hub}/docs`, `${hub}/docs`), true);
  assert.equal(audienceCovers(hub, `${hub}/docs`, `${hub}/other`), false);
  assert.equal(audienceCovers(hub, `${hub}/api/mcp/a/mcp`, 5 as unknown as string), false);
});
