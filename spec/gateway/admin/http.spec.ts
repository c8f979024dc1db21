// The operator's page over HTTP: it rests on the authorization server's browser session, as
// the account page does (sign-in there, and back); only members of the admin groups see it
// (anyone else signed in gets a 403 page showing nothing of anyone); its forms need the
// session's CSRF token for this page (not the account page's); stopping a tool session from it
// stops the process and says so in the audit trail; sign-out ends the shared session.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { hiddenField } from "../oauth/harness.ts";
import { PageClient } from "../account/client.ts";
import { fake, json, post, rpc } from "../helpers.ts";
import { startPagesHub } from "../account/hub.ts";

const PAGE = "developer/oauth/admin";

test("/admin: the OAuth pages' sign-in, admins only, CSRF on every change, a stop that stops", { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "admin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startPagesHub(t, { tools: { fake: { revisions: { default: fake() } } }, admin: { groups: ["staff"] }, audit: { dir: join(dir, "trail") } });

  // alice runs a tool session and calls it once.
  const init = await post(
    `${h.base}/api/mcp/fake/mcp`,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } }),
  );
  const mcp = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("tools/call", { name: "x", arguments: {} }, 2), mcp)).text();

  // Nobody signed in: /admin (and /admin/) lead to the page, which answers with the hub's sign-in page, and nothing of anyone.
  const anonymous = new PageClient(h.base);
  const start = await anonymous.get("admin");
  assert.equal(start.status, 303);
  assert.equal(start.headers.get("location"), PAGE);
  assert.equal((await anonymous.get("admin/")).headers.get("location"), `../${PAGE}`);
  assert.equal((await anonymous.get("admin?next=https%3A%2F%2Fevil.example%2F")).headers.get("location"), PAGE, "a fixed place, whatever the query says");
  assert.equal((await anonymous.get("admin/elsewhere")).status, 404);
  const signInPage = await anonymous.get(PAGE);
  assert.equal(signInPage.status, 200);
  assert.equal(signInPage.headers.get("x-frame-options"), "DENY");
  const form0 = await signInPage.text();
  assert.match(form0, /<form method="post" action="login">/);
  assert.match(form0, /The operator&#39;s page shows/);
  assert.doesNotMatch(form0, /alice|fake/);
  // A bearer is no way in: the page is the browser session's, whose forms a bearer could skip.
  const withBearer = await fetch(`${h.base}/${PAGE}`, { headers: { authorization: `Bearer ${h.tokens.carol}` } });
  assert.match(await withBearer.text(), /action="login"/);
  assert.equal((await anonymous.post(PAGE, { action: "stop-session" })).status, 401);

  // Signed in but not an admin: a 403 page, nothing of anyone.
  const alice = new PageClient(h.base);
  await assert.rejects(alice.signIn("alice", "pw-alice", "admin"), /admin page answered 403/);
  const refused = await alice.get(PAGE);
  assert.equal(refused.status, 403);
  const refusedHtml = await refused.text();
  assert.match(refusedHtml, /for the hub&#39;s operators/);
  assert.doesNotMatch(refusedHtml, /fake|carol|default/);
  // Her own account page's token is no good here, nor would a good one be.
  const aliceAccount = await alice.page("account");
  assert.equal((await alice.post(PAGE, { action: "stop-session", csrf: hiddenField(aliceAccount, "csrf") })).status, 403);

  // An admin signs in through the same pages: alice's session, its backend, a stop button.
  const carol = new PageClient(h.base);
  const html = await carol.signIn("carol", "pw-carol", "admin");
  assert.match(html, /<td>alice<\/td><td>fake<\/td><td>default<\/td><td>command<\/td>/);
  assert.match(html, /<svg class="chart"/);
  assert.match(html, /Last 24 hours/);
  const instance = /name="instance" value="([0-9a-f]{32})"/.exec(html)![1]!;
  const csrf = hiddenField(html, "csrf");
  const carolAccount = hiddenField(await carol.page("account"), "csrf");

  // A stop without the page's token (a form posted from elsewhere, or the account page's) is refused; the session runs on.
  for (const token of [undefined, "forged", carolAccount]) {
    const res = await carol.post(PAGE, { action: "stop-session", instance, ...(token ? { csrf: token } : {}) });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /Form expired/);
  }
  assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 1);
  const stopped = await carol.post(PAGE, { action: "stop-session", instance, csrf });
  assert.equal(stopped.status, 303);
  assert.equal(stopped.headers.get("location"), "admin");
  assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 0);
  // Stopping one that is gone already, or none, just goes back to the page.
  assert.equal((await carol.post(PAGE, { action: "stop-session", instance, csrf })).status, 303);
  assert.equal((await carol.post(PAGE, { action: "stop-session", csrf })).status, 303);
  assert.match(await carol.page("admin"), /No tool session runs on this replica/);

  // Wrong methods and actions.
  assert.equal((await fetch(`${h.base}/${PAGE}`, { method: "PUT", headers: { cookie: carol.cookie! } })).status, 405);
  assert.equal((await carol.post(PAGE, { action: "reboot", csrf })).status, 400);

  // Taken out of the admin group: the session no longer opens the page, nor do its forms work.
  await new StoreAccountDirectory(h.store).setGroups("carol", []);
  assert.equal((await carol.get(PAGE)).status, 403);
  assert.equal((await carol.post(PAGE, { action: "stop-session", instance, csrf })).status, 403);
  await new StoreAccountDirectory(h.store).setGroups("carol", ["staff"]);

  // Sign-out needs its token too, then ends the session the OAuth pages share.
  assert.equal((await carol.post(PAGE, { action: "sign-out", csrf: "forged" })).status, 403);
  const before = carol.cookie!;
  const out = await carol.post(PAGE, { action: "sign-out", csrf });
  assert.equal(out.status, 303);
  assert.match(out.headers.getSetCookie()[0]!, /^hub_oauth=; Path=\/developer\/oauth; Max-Age=0/);
  const replayed = await fetch(`${h.base}/${PAGE}`, { headers: { cookie: before } });
  assert.match(await replayed.text(), /action="login"/, "the old cookie signs nobody in");

  await h.gw.close();
  const lines = readFileSync(join(dir, "trail", "audit.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.filter((l) => l.event === "session.stop").map((l) => [l.person, l.reason, l.by]),
    [["alice", "stopped by an operator", "carol"]],
  );
});
