import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalResource } from "../../../lib/gateway/oauth/resources.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
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

test("a tool's resource spelled without /mcp is bound to the tool's canonical resource", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const { tokens } = await obtainTokens(base, `${base}/api/mcp/mcpdemo/`);
  assert.equal((await server.verifier.verify(tokens.access_token, `${base}/api/mcp/mcpdemo/mcp`))?.audience, `${base}/api/mcp/mcpdemo/mcp`);
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

test("canonical resources: one spelling per tool, whole hub as undefined, other hosts refused", () => {
  const hub = "https://hub.example";
  assert.equal(canonicalResource(hub, `${hub}/api/mcp/a/mcp/`), `${hub}/api/mcp/a/mcp`);
  assert.equal(canonicalResource(hub, `${hub}/api/mcp/a`), `${hub}/api/mcp/a/mcp`);
  assert.equal(canonicalResource(hub, `${hub}/api/mcp/a/tools/x`), `${hub}/api/mcp/a/mcp`);
  assert.equal(canonicalResource(hub, `${hub}/docs/`), `${hub}/docs`);
  assert.equal(canonicalResource(hub, `${hub}/`), undefined);
  assert.equal(canonicalResource(hub, hub), undefined);
  assert.equal(canonicalResource(hub, "https://hub.example.evil/api/mcp/a/mcp"), false);
  assert.equal(canonicalResource(hub, `${hub}/api/mcp/a/mcp#x`), false);
  assert.equal(canonicalResource(hub, "nope"), false);
});

test("an access token's use is noted for the account page at most once a minute per grant, beside the grant", async (t) => {
  let puts = 0;
  class Counting extends MemoryRecordStore {
    override put(collection: string, id: string, value: unknown): Promise<void> {
      if (collection === "oauth-grant-uses") puts++;
      return super.put(collection, id, value);
    }
  }
  const store = new Counting();
  const { base, server, clock } = await startAuthorizationServer(t, { store });
  const { tokens } = await obtainTokens(base);
  for (let i = 0; i < 20; i++) assert.ok(await server.verifier.verify(tokens.access_token, base));
  assert.equal(puts, 1);
  clock.now += 59_000;
  assert.ok(await server.verifier.verify(tokens.access_token, base));
  assert.equal(puts, 1, "within the minute: no write");
  clock.now += 1000;
  assert.ok(await server.verifier.verify(tokens.access_token, base));
  assert.equal(puts, 2);
  const [use] = await store.list<{ at: number }>("oauth-grant-uses");
  assert.equal(use!.value.at, clock.now);
  assert.deepEqual(
    (await store.list("oauth-grants")).map((g) => g.id),
    [use!.id],
  );
});
