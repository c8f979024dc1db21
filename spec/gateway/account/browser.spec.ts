// The account page in headless Chromium with JavaScript off, as a person uses it: /account,
// sign in, make a token, see it once, revoke it; and a form on another site that posts to the
// page with the person's cookie is refused. Screenshots in spec/.output/account.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "puppeteer-core";
import { browserSkip, launchBrowser, outputDir } from "../../helpers/browser.ts";
import { listen } from "../oauth/harness.ts";
import { PASSWORD, startHub, USER } from "../oauth/hub.ts";

async function click(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

test("with JavaScript off: sign in from /account, make a token, see it once, revoke it", { skip: browserSkip(), timeout: 120_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const shots = outputDir("account");
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 900, height: 900 });
  await page.goto(`${gateway.publicUrl}/account`, { waitUntil: "load" });
  assert.match(await page.content(), /Your account page lists your tokens/);
  await page.screenshot({ path: join(shots, "1-sign-in.png"), fullPage: true });
  await page.type("#username", USER);
  await page.type("#password", PASSWORD);
  await click(page, "button[type=submit]");
  assert.equal(new URL(page.url()).pathname, "/developer/oauth/account");
  assert.match(await page.content(), /Signed in as <strong>ada<\/strong>/);
  await page.screenshot({ path: join(shots, "2-empty.png"), fullPage: true });

  await page.type("#name", "laptop");
  await page.select("#expires", "90");
  await click(page, "form:has(#name) button[type=submit]");
  const token = await page.$eval("#token", (el) => (el as unknown as { value: string }).value);
  assert.match(token, /^hubmcp_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  const config = JSON.parse(await page.$eval("#bridge", (el) => el.textContent ?? ""));
  assert.equal(config.mcpServers.hub.env.HUB_TOKEN, token);
  await page.screenshot({ path: join(shots, "3-token-shown-once.png"), fullPage: true });

  await page.goto(`${gateway.publicUrl}/account`, { waitUntil: "load" });
  const listed = await page.content();
  assert.ok(!listed.includes(token), "not shown again");
  assert.match(listed, /<td>laptop<\/td>/);
  await page.screenshot({ path: join(shots, "4-listed.png"), fullPage: true });
  await click(page, 'button[aria-label="Revoke token laptop"]');
  assert.match(await page.content(), /The token is revoked\./);
  assert.match(await page.content(), /You have no API tokens\./);
  await page.screenshot({ path: join(shots, "5-revoked.png"), fullPage: true });

  // Another site's form, posted with the person's cookie (same site for the browser: loopback): no CSRF token, refused.
  const evil = createServer((_req, res) => {
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(
        `<!doctype html><form method="post" action="${gateway.publicUrl}/developer/oauth/account"><input type="hidden" name="action" value="create-token"><input type="hidden" name="name" value="planted"><input type="hidden" name="expires" value="365"><button id="go">Win a prize</button></form>`,
      );
  });
  const evilUrl = await listen(evil, t);
  await page.goto(evilUrl, { waitUntil: "load" });
  const answer = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#go")]);
  assert.equal(answer[0]?.status(), 403);
  assert.match(await page.content(), /Form expired/);
  await page.goto(`${gateway.publicUrl}/account`, { waitUntil: "load" });
  assert.doesNotMatch(await page.content(), /planted/);
});
