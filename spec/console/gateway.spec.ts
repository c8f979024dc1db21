// The tool console through the hub gateway: a browser holding the session cookie opens a
// tool session's proxy path (what `GET /api/mcp/{tool}/sse` hands out) and runs a tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, startHarness } from "../gateway/helpers.ts";
import { browserSkip, launchBrowser } from "../helpers/browser.ts";

const skip = browserSkip();

interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): PageElement | null };

test("the console works through the gateway's session proxy path", { skip, timeout: 90_000 }, async (t) => {
  // The app child runs without coverage (see spec/gateway/sdk-client.spec.ts).
  const h = await startHarness(
    t,
    { tools: { mcpdemo: { revisions: { default: { app: "fixtures/demo/app.ts" } } } } },
    { childEnv: { ...process.env, NODE_V8_COVERAGE: "" } },
  );
  const info = await json(await fetch(`${h.base}/api/mcp/mcpdemo/sse`, { headers: { authorization: `Bearer ${h.tokens.alice}` } }));
  const pageUrl = String(info.sse_endpoint).replace(/sse$/, "");
  const [name, value] = String(info.cookie_header).split("=") as [string, string];

  const withoutCookie = await fetch(pageUrl, { headers: { accept: "text/html" } });
  assert.equal(withoutCookie.status, 401);
  await withoutCookie.text();

  // The app frame's own policy survives the proxy, built from the domains its URL names.
  const csp = encodeURIComponent(JSON.stringify({ connectDomains: ["https://api.example.org"] }));
  const frame = await fetch(`${pageUrl}console/frame.html?csp=${csp}`, { headers: { cookie: String(info.cookie_header) } });
  assert.equal(frame.status, 200);
  await frame.arrayBuffer();
  assert.match(frame.headers.get("content-security-policy") ?? "", /^sandbox allow-scripts; default-src 'none';.*connect-src https:\/\/api\.example\.org;/);

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${(err as Error).message}`));
  page.on("console", (msg) => void (msg.type() === "error" && problems.push(`console error: ${msg.text()}`)));
  await page.setCookie({ name, value, url: pageUrl });
  await page.goto(pageUrl);
  await page.waitForSelector("body[data-ready]");
  assert.equal(await page.$eval("#status", (el) => el.textContent), "Connected");

  await page.click("#tool-add > summary");
  await page.type("#tool-add input[name=a]", "4");
  await page.type("#tool-add input[name=b]", "5");
  await page.click("#tool-add button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-add .run-status")?.textContent ?? "").startsWith("Done"), { polling: "mutation" });
  assert.equal(await page.$eval("#tool-add .result pre", (el) => el.textContent), "9");

  // The projectile's App loads through the same route: read, framed, handshaken, given the result.
  await page.click("#tool-projectile > summary");
  await page.type("#tool-projectile input[name=speed]", "20");
  await page.type("#tool-projectile input[name=angle]", "45");
  await page.click("#tool-projectile button.primary");
  const appFrame = await page.waitForSelector("#tool-projectile iframe.app");
  const app = (await appFrame!.contentFrame())!;
  await app.waitForFunction(() => (document.querySelector("#caption")?.textContent ?? "").startsWith("range 40.77 m"), { polling: 100 });
  await app.waitForFunction(() => document.querySelector("#caption")?.getAttribute("data-range") === "40.775", { polling: 100 });
  assert.deepEqual(problems, []);
});
