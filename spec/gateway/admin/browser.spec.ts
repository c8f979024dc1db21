// The operator's page in Chromium with JavaScript off: sign in with the hub's sign-in page
// (the OAuth pages' browser session, as for the account page), read the live
// tool sessions, the usage chart and tables, stop a session with its button; screenshots in
// spec/.output/admin for a person to look at.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { browserSkip, launchBrowser, outputDir } from "../../helpers/browser.ts";
import { fake, json, post, rpc } from "../helpers.ts";
import { startPagesHub } from "../account/hub.ts";

test("an operator signs in, sees who runs what, and stops a session, all without JavaScript", { skip: browserSkip(), timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "admin-browser-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startPagesHub(t, {
    tools: { fake: { revisions: { default: fake(), beta: fake() } }, sim: { revisions: { default: fake() } } },
    admin: { groups: ["staff"] },
    audit: { dir: join(dir, "trail") },
  });
  for (const [tool, who, revision] of [
    ["fake", h.tokens.alice, "default"],
    ["sim", h.tokens.bob, "default"],
    ["fake", h.tokens.bob, "beta"],
  ] as const) {
    const url = `${h.base}/api/mcp/${tool}/mcp?revision=${revision}`;
    const init = await post(url, who, rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } }));
    const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
    await init.text();
    for (let i = 0; i < 3; i++) await (await post(url, who, rpc("tools/call", { name: "run", arguments: {} }, i + 2), session)).text();
  }
  // One refused call, for the recent errors.
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("tools/call", { name: "run", arguments: {} }), { "mcp-session-id": "gone" })).text();

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${h.base}/admin`, { waitUntil: "load" });
  await page.screenshot({ path: join(outputDir("admin"), "sign-in.png") });
  await page.type("#username", "carol");
  await page.type("#password", "pw-carol");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button[type=submit]")]);
  assert.equal(new URL(page.url()).pathname, "/developer/oauth/admin");
  const rows = await page.$$eval("#sessions ~ table tbody tr", (trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 4).map((td) => td.textContent)),
  );
  assert.deepEqual(rows.map((r) => r.join(" ")).sort(), ["alice fake default command", "bob fake beta command", "bob sim default command"]);
  assert.equal(await page.$eval("svg.chart", (svg) => svg.getAttribute("role")), "img");
  const errors = await page.$$eval("#errors ~ table tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
  assert.ok(errors.some((e) => e.includes("tool.call") && e.includes("404")));
  await page.screenshot({ path: join(outputDir("admin"), "admin.png"), fullPage: true });

  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('button[aria-label="Stop alice\'s fake session"]')]);
  const after = await page.$$eval("#sessions ~ table tbody tr", (trs) => trs.map((tr) => tr.querySelector("td")?.textContent));
  assert.deepEqual(after.sort(), ["bob", "bob"]);
  assert.equal((await json(await fetch(`${h.base}/healthz`))).toolSessions, 2);
  await page.screenshot({ path: join(outputDir("admin"), "after-stop.png"), fullPage: true });
});
