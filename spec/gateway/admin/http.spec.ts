// The operator's page over HTTP: only members of the admin groups see it (others, signed in
// or with a bearer, get the gateway's plain 404, the same as any unknown path); its forms need
// the session's CSRF token; stopping a tool session from it stops the process and says so in
// the audit trail.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/accounts.ts";
import { fake, json, post, rpc, startHarness } from "../helpers.ts";

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

test("/admin: admins only, CSRF on every change, a stop that stops", { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "admin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } } }, admin: { groups: ["staff"] }, audit: { dir: join(dir, "trail") } });
  const admin = `${h.base}/admin`;
  const page = (headers: Record<string, string> = {}): Promise<Response> => fetch(admin, { headers, redirect: "manual" });
  const send = (leaf: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${admin}/${leaf}`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, redirect: "manual" });

  // alice runs a tool session and calls it once.
  const init = await post(
    `${h.base}/api/mcp/fake/mcp`,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } }),
  );
  const mcp = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("tools/call", { name: "x", arguments: {} }, 2), mcp)).text();

  // Nobody signed in: the sign-in form, and nothing of anyone.
  const anonymous = await page();
  assert.equal(anonymous.status, 200);
  const form0 = await anonymous.text();
  assert.match(form0, /<form method="post" action="\/admin\/sign-in">/);
  assert.doesNotMatch(form0, /alice|fake/);
  assert.equal(anonymous.headers.get("x-frame-options"), "DENY");

  // Not an admin, with a bearer or a password: the same 404 as a path that does not exist.
  const unknown = await fetch(`${h.base}/no-such-page`);
  const notFound = { status: unknown.status, body: await unknown.text() };
  for (const token of [h.tokens.alice, h.tokens.bob]) {
    const res = await page({ authorization: `Bearer ${token}` });
    assert.deepEqual({ status: res.status, body: await res.text() }, notFound);
  }
  const aliceSignIn = await send("sign-in", form({ username: "alice", password: "pw-alice" }));
  assert.deepEqual({ status: aliceSignIn.status, body: await aliceSignIn.text() }, notFound);
  assert.equal(aliceSignIn.headers.get("set-cookie"), null, "no session for a non-admin");
  const bad = await send("sign-in", form({ username: "carol", password: "wrong" }));
  assert.equal(bad.status, 401);
  assert.match(await bad.text(), /Wrong user name or password/);
  const elsewhere: Array<Record<string, string>> = [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }];
  for (const from of elsewhere) {
    const crossSite = await send("sign-in", form({ username: "carol", password: "pw-carol" }), from);
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.headers.get("set-cookie"), null);
    await crossSite.text();
  }

  // An admin's bearer sees the page: alice's session, its backend, a stop button.
  const withBearer = await page({ authorization: `Bearer ${h.tokens.carol}` });
  assert.equal(withBearer.status, 200);
  const html = await withBearer.text();
  assert.match(html, /<td>alice<\/td><td>fake<\/td><td>default<\/td><td>command<\/td>/);
  assert.match(html, /<svg class="chart"/);
  assert.match(html, /Last 24 hours/);

  // An admin signs in with the form: a cookie for /admin only, HttpOnly, SameSite=Strict.
  const signIn = await send("sign-in", form({ username: "carol", password: "pw-carol" }));
  assert.equal(signIn.status, 303);
  assert.equal(signIn.headers.get("location"), "/admin");
  const setCookie = signIn.headers.get("set-cookie")!;
  assert.match(setCookie, /^hub_admin=[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=28800; HttpOnly; SameSite=Strict$/);
  const cookie = { cookie: setCookie.split(";")[0]! };
  const signedIn = await page(cookie);
  assert.equal(signedIn.status, 200);
  const body = await signedIn.text();
  const instance = /name="instance" value="([0-9a-f]{32})"/.exec(body)![1]!;
  const csrf = /action="\/admin\/sessions\/stop">.*?name="csrf" value="([^"]+)"/.exec(body)![1]!;
  const signOutCsrf = /action="\/admin\/sign-out">.*?name="csrf" value="([^"]+)"/.exec(body)![1]!;

  // A stop without the page's token (a form posted from elsewhere) is refused; the session runs on.
  for (const token of [undefined, "forged", signOutCsrf]) {
    const refused = await send("sessions/stop", form({ instance, ...(token ? { csrf: token } : {}) }), cookie);
    assert.equal(refused.status, 403);
    assert.equal((await json(refused)).error, "forbidden");
  }
  assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 1);
  const stopped = await send("sessions/stop", form({ instance, csrf }), cookie);
  assert.equal(stopped.status, 303);
  assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 0);
  // Stopping one that is gone already just goes back to the page.
  assert.equal((await send("sessions/stop", form({ instance, csrf }), cookie)).status, 303);
  assert.equal((await page(cookie)).status, 200);

  // Wrong methods and paths under /admin.
  assert.equal((await fetch(`${admin}/sign-in`)).status, 405);
  assert.equal((await send("", "", cookie)).status, 405);
  assert.equal((await fetch(`${admin}/sessions/stop`, { headers: cookie })).status, 405);
  assert.equal((await fetch(`${admin}/elsewhere`, { headers: cookie })).status, 404);

  // Taken out of the admin group: the cookie no longer opens the page.
  await new StoreAccountDirectory(h.store).setGroups("carol", []);
  const demoted = await page(cookie);
  assert.deepEqual({ status: demoted.status, body: await demoted.text() }, notFound);
  await new StoreAccountDirectory(h.store).setGroups("carol", ["staff"]);

  // Sign-out needs its token too, then forgets the session.
  assert.equal((await send("sign-out", form({ csrf }), cookie)).status, 403);
  const out = await send("sign-out", form({ csrf: signOutCsrf }), cookie);
  assert.equal(out.status, 303);
  assert.match(out.headers.get("set-cookie")!, /^hub_admin=; Path=\/admin; Max-Age=0/);
  assert.match(await (await page(cookie)).text(), /action="\/admin\/sign-in"/);

  await h.gw.close();
  const lines = readFileSync(join(dir, "trail", "audit.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.filter((l) => l.event === "session.stop").map((l) => [l.person, l.reason]),
    [["alice", "stopped by an operator"]],
  );
});
