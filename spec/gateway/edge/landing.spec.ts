// `GET /` on the gateway: where to connect for anyone, and the tools a person may use for a
// request that carries their credential. Never another person's tools, never a token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fake, startHarness } from "../helpers.ts";

const CONFIG = {
  tools: {
    fake: { revisions: { default: fake() } },
    staffonly: { groups: ["staff"], revisions: { default: fake() } },
  },
};

test("GET / is a landing page: public without a credential, the person's tools with one", async (t) => {
  const h = await startHarness(t, CONFIG);
  const get = (headers: Record<string, string> = {}, method = "GET") => fetch(`${h.base}/`, { method, headers });

  await t.test("no credential, a browser: HTML naming the connector URL and no tool", async () => {
    const res = await get({ accept: "text/html,application/xhtml+xml,*/*;q=0.8" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    const page = await res.text();
    assert.ok(page.includes(`<code>${h.base}/mcp</code>`));
    assert.doesNotMatch(page, /staffonly|\/api\/mcp\/fake/);
  });

  await t.test("no credential, JSON: the public fields only", async () => {
    const res = await get({ accept: "application/json" });
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ["connect", "signIn"]);
    assert.equal(body.connect, `${h.base}/mcp`);
  });

  await t.test("alice (no staff group): her tools with their URLs, not staffonly, and no token echoed", async () => {
    const res = await get({ accept: "application/json", authorization: `Bearer ${h.tokens.alice}` });
    const body = (await res.json()) as { user: string; tools: Array<{ name: string; mcp: string; sse: string }> };
    assert.equal(body.user, "alice");
    assert.deepEqual(body.tools, [{ name: "fake", mcp: `${h.base}/api/mcp/fake/mcp`, sse: `${h.base}/api/mcp/fake/sse` }]);
    assert.ok(!JSON.stringify(body).includes(h.tokens.alice));
    const page = await (await get({ authorization: `Bearer ${h.tokens.carol}` })).text();
    assert.match(page, /Tools carol may use.+<b>fake<\/b>.+<b>staffonly<\/b>/s);
    const bob = (await (await get({ accept: "application/json", authorization: `Bearer ${h.tokens.bob}` })).json()) as { tools: unknown[] };
    assert.deepEqual(bob.tools, [{ name: "fake", mcp: `${h.base}/api/mcp/fake/mcp`, sse: `${h.base}/api/mcp/fake/sse` }]);
  });

  await t.test("a bad credential is refused as at /mcp; other methods get 405", async () => {
    const bad = await get({ authorization: "Bearer hubtok_nope" });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get("www-authenticate")!, /invalid_token/);
    const posted = await get({}, "POST");
    assert.deepEqual([posted.status, posted.headers.get("allow")], [405, "GET, HEAD, OPTIONS"]);
  });
});

test("a person who may use no tool is told so", async (t) => {
  const h = await startHarness(t, { tools: { staffonly: CONFIG.tools.staffonly } });
  const page = await (await fetch(`${h.base}/`, { headers: { authorization: `Bearer ${h.tokens.bob}` } })).text();
  assert.match(page, /bob may use no tool here yet/);
});
