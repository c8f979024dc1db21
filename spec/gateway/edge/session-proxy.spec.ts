// The session proxy cookie (`GET …/sse`'s cookie_header) is a credential for one account on
// one tool session: it expires, it is worthless for another account, and it stops working as
// soon as (lookupCacheSeconds: 0 here) the account is deleted or leaves the tool's groups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sessionProxyCookie } from "../../../lib/gateway/edge/session-proxy-cookie.ts";
import type { ToolSessionRecord } from "../../../lib/gateway/tool-sessions/records.ts";
import { json, post, rpc, startHarness } from "../helpers.ts";

const CONFIG = {
  tools: { demo: { groups: ["users"], revisions: { default: { app: "fixtures/demo/app.ts" } } } },
  limits: { lookupCacheSeconds: 0 },
};

test("the session proxy cookie is bound to its account, expires, and ends with the account or its group", { timeout: 120_000 }, async (t) => {
  const h = await startHarness(t, CONFIG, { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } });
  const info = await json(await fetch(`${h.base}/api/mcp/demo/sse`, { headers: { authorization: `Bearer ${h.tokens.alice}` } }));
  const list = async (cookie: string): Promise<number> => (await post(`${info.post_endpoint}mcp`, undefined, rpc("tools/list"), { cookie })).status;
  assert.equal(await list(info.cookie_header), 200);

  const rec = (await h.store.get<ToolSessionRecord>("tool-sessions", "alice\ndemo\ndefault"))!;
  const key = await h.store.secret("session-cookie-key");
  assert.equal(await list(sessionProxyCookie(key, rec.instance, "carol", 3_600_000)), 401, "minted for another account");
  assert.equal(await list(sessionProxyCookie(key, rec.instance, "alice", 60_000, Date.now() - 120_000)), 401, "expired");
  assert.equal(await list(sessionProxyCookie(key, rec.instance, "alice", 60_000)), 200);
  assert.equal(await list(info.cookie_header.replace(/.$/, (c: string) => (c === "A" ? "B" : "A"))), 401, "tampered");

  const account = (await h.store.get<Record<string, unknown>>("accounts", "alice"))!;
  await h.store.put("accounts", "alice", { ...account, groups: [] });
  const left = await post(`${info.post_endpoint}mcp`, undefined, rpc("tools/list"), { cookie: info.cookie_header });
  assert.equal(left.status, 403, "no longer in the tool's groups");
  await h.store.put("accounts", "alice", account);
  assert.equal(await list(info.cookie_header), 200);
  await h.store.delete("accounts", "alice");
  const used = await h.store.get<{ at: number }>("tool-session-use", "alice\ndemo\ndefault");
  assert.equal(await list(info.cookie_header), 401, "the account is gone");
  assert.deepEqual(await h.store.get("tool-session-use", "alice\ndemo\ndefault"), used, "a refused use does not keep the session alive");
});

test("proxyCookieMinutes sets the cookie's lifetime", () => {
  const before = Date.now();
  const cookie = sessionProxyCookie(Buffer.alloc(32), "a".repeat(32), "alice", 90 * 60_000, before);
  const expires = parseInt(decodeURIComponent(cookie.split("=")[1]!).split(":")[1]!.split("_")[0]!, 36);
  assert.equal(expires, Math.ceil((before + 90 * 60_000) / 1000));
});
