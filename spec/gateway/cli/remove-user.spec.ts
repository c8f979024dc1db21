// Removing a user ends what the account held, in a running gateway, from another process:
// its API token, the tool session behind its session id and its proxy path, and its OAuth
// access and refresh tokens are refused once the gateway's lookup cache lets go (at most
// lookupCacheSeconds; polled with a bound, never timed).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { freePort, ROOT, tempDir } from "../../helpers/launcher-fixtures.ts";
import { hubCommand, rpcResult, serveHub } from "./hub-process.ts";
import { obtainTokens, token as tokenRequest } from "../oauth/harness.ts";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { SESSIONS as BROWSER_SESSIONS } from "../../../lib/gateway/oauth/browser-session.ts";
import { GRANTS } from "../../../lib/gateway/oauth/grants.ts";
import { removeUser } from "../../../lib/gateway/cli/remove-user.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } },
});
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });

function post(url: string, headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
}

/** The status `request` answers once it is refused, asking again until then (a bounded number of times). */
async function refusedEventually(request: () => Promise<Response>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const res = await request();
    await res.arrayBuffer();
    if (res.status >= 400 || attempt === 200) return res.status;
    await new Promise((done) => setTimeout(done, 50));
  }
}

test("a removed user's API token, tool sessions and OAuth grants stop working within lookupCacheSeconds", { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t, "hub-remove-");
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const config = join(dir, "gateway.json");
  const app = join(ROOT, "fixtures", "demo", "app.ts");
  writeFileSync(config, JSON.stringify({ publicUrl, tools: { mcpdemo: { revisions: { default: { app } } } }, limits: { lookupCacheSeconds: 1 } }));
  const data = ["--data-dir", join(dir, "data")];
  assert.equal((await hubCommand(["user", "add", "ada", "--password-stdin", ...data], "correct horse\n")).code, 0);
  const created = await hubCommand(["token", "create", "ada", ...data]);
  const apiToken = created.stdout.trim();
  await serveHub(t, ["--config", config, "--port", String(port), ...data]);
  const mcp = `${publicUrl}/api/mcp/mcpdemo/mcp`;

  // Everything works before.
  const bearer = { authorization: `Bearer ${apiToken}` };
  const init = await post(mcp, bearer, INIT);
  assert.equal(init.status, 200);
  await rpcResult(init);
  const session = { ...bearer, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
  const proxy = (await (await fetch(`${publicUrl}/api/mcp/mcpdemo/sse`, { headers: bearer })).json()) as { post_endpoint: string; cookie_header: string };
  const viaProxy = (): Promise<Response> => post(`${proxy.post_endpoint}mcp`, { cookie: proxy.cookie_header }, INIT);
  const before = await viaProxy();
  assert.equal(before.status, 200);
  await before.arrayBuffer();
  const { clientId, tokens } = await obtainTokens(publicUrl, mcp);
  const oauth = await post(mcp, { authorization: `Bearer ${tokens.access_token}` }, INIT);
  assert.equal(oauth.status, 200);
  await oauth.arrayBuffer();

  const removed = await hubCommand(["user", "remove", "ada", ...data]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /^user ada removed \(1 API token, 1 OAuth sign-in, 1 tool session ended\)\n$/);

  assert.equal(await refusedEventually(() => post(mcp, bearer, INIT)), 401);
  assert.equal(await refusedEventually(() => post(mcp, session, LIST)), 401);
  assert.equal(await refusedEventually(() => post(mcp, { authorization: `Bearer ${tokens.access_token}` }, INIT)), 401);
  // Whichever comes first: the session proxy's own account check (401), or the tool session's
  // records being gone (404).
  const proxied = await refusedEventually(viaProxy);
  assert.ok(proxied === 401 || proxied === 404, `the session proxy answered ${proxied}`);
  const refresh = await tokenRequest(publicUrl, { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
  assert.equal(refresh.status, 400);
  assert.equal(((await refresh.json()) as { error: string }).error, "invalid_grant");
});

test("removeUser revokes only that user's grants and ends only that user's browser sign-ins", async () => {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  await accounts.add("ada", "pw");
  await accounts.add("bob", "pw");
  const grant = (user: string, revoked = false) => ({ client_id: "c", user, created_at: 0, used_generation: 0, ...(revoked ? { revoked } : {}) });
  await store.put(GRANTS, "g1", grant("ada"));
  await store.put(GRANTS, "g2", grant("ada", true));
  await store.put(GRANTS, "g3", grant("bob"));
  await store.put(BROWSER_SESSIONS, "s1", { user: "ada", expires_at: Date.now() + 60_000 });
  await store.put(BROWSER_SESSIONS, "s2", { user: "bob", expires_at: Date.now() + 60_000 });
  assert.deepEqual(await removeUser(store, "ada"), { tokens: 0, grants: 1, toolSessions: 0 });
  assert.equal((await store.get<{ revoked?: boolean }>(GRANTS, "g1"))?.revoked, true);
  assert.equal((await store.get<{ revoked?: boolean }>(GRANTS, "g3"))?.revoked, undefined);
  assert.deepEqual(
    (await store.list(BROWSER_SESSIONS)).map((r) => r.id),
    ["s2"],
  );
  await assert.rejects(removeUser(store, "ada"), /no user ada/);
});
