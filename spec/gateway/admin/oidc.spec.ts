// An operator who signs in through the hub's OpenID provider (a real one, `oidc-provider`)
// reaches /admin, as the account page's people do: the page has no sign-in of its own that
// would know passwords only. Someone the provider does not put in an admin group gets the 403.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fake } from "../helpers.ts";
import { HttpBrowser } from "../oauth/http-browser.ts";
import { secretFile, walkSignIn } from "../oauth/oidc-flow.ts";
import { CLIENT_ID, CLIENT_SECRET, startProvider } from "../oauth/oidc-provider.ts";
import { startPagesHub } from "../account/hub.ts";

test("an admin signed in at the hub's OpenID provider reaches /admin; a non-admin from there gets 403", { timeout: 60_000 }, async (t) => {
  const provider = await startProvider(t);
  const dir = await mkdtemp(join(tmpdir(), "admin-oidc-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clientSecretFile = await secretFile(dir, "oidc-secret", CLIENT_SECRET);
  const h = await startPagesHub(t, {
    tools: { fake: { revisions: { default: fake() } } },
    admin: { groups: ["ops"] },
    oauth: { identity: { issuer: provider.issuer, clientId: CLIENT_ID, clientSecretFile, label: "Spec Hub", accounts: "create", passwords: false } },
  });
  provider.configure(`${h.base}/developer/oauth/upstream/callback`);
  provider.groups.set("grace", ["ops"]);

  const browser = new HttpBrowser();
  const landing = await walkSignIn(browser, `${h.base}/admin`, "grace");
  assert.equal(landing.status, 200);
  assert.match(landing.html, /<h1>Hub operations<\/h1>/);
  assert.match(landing.html, /<span>grace<\/span>/);
  assert.ok(
    browser.visited.some((u) => u.origin === provider.issuer),
    "by way of the provider",
  );
  assert.equal(browser.visited.at(-1)!.pathname, "/developer/oauth/admin");

  const other = new HttpBrowser();
  const refused = await walkSignIn(other, `${h.base}/admin`, "heidi");
  assert.equal(refused.status, 403);
  assert.doesNotMatch(refused.html, /grace|Hub operations/);
});
