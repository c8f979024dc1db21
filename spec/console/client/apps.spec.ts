// The console as an MCP Apps host, against an App built with the official SDK
// (@modelcontextprotocol/ext-apps) in headless Chromium: the handshake, tool input and result,
// a tool call back (and a refused one), a resource read, size changes, teardown both ways,
// and the sandbox: no way to the console's origin, its cookies or storage, and no network
// beyond the one origin the App's resource declares.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { sdkAppServer } from "../../../fixtures/apps/sdk-app.ts";
import { browserSkip, launchBrowser, outputDir } from "../../helpers/browser.ts";

const skip = browserSkip();

interface PageElement {
  textContent: string | null;
  value: string;
  checked: boolean;
  open: boolean;
  style: { height: string };
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): PageElement | null; cookie: string };
declare const window: { probe: Record<string, unknown> };

/** A loopback server that counts requests; `cors` lets an opaque-origin frame read its answers. */
async function counter(t: { after(fn: () => unknown): void }, cors: boolean): Promise<{ url: string; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/plain", ...(cors ? { "access-control-allow-origin": "*" } : {}) });
    res.end("allowed-ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/`, origin, hits };
}

test("an App built with the ext-apps SDK runs in the console: handshake, result, call back, sandbox", { skip, timeout: 120_000 }, async (t) => {
  const allowed = await counter(t, true);
  const denied = await counter(t, true);
  const { server, echoed } = sdkAppServer(allowed.origin);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${(err as Error).message}`));
  // The App's refused loads are reported as console errors; those are the point of the test.
  page.on("console", (msg) => {
    if (msg.type() === "error" && !/Content Security Policy|Refused to|Failed to fetch|ERR_BLOCKED|sandboxed|SecurityError|denied/i.test(msg.text()))
      problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(running.url);
  await page.waitForSelector("body[data-ready]");
  await page.setCookie({ name: "console_secret", value: "s3cret", url: running.url });

  await page.click("#tool-measure > summary");
  await page.type("#tool-measure input[name=label]", "first");
  await page.type("#tool-measure input[name=console_url]", running.url);
  await page.type("#tool-measure input[name=allowed_url]", allowed.url);
  await page.type("#tool-measure input[name=denied_url]", denied.url);
  await page.click("#tool-measure button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-measure .run-status")?.textContent ?? "").startsWith("Done"), { polling: "mutation" });
  // The text fallback is there too.
  assert.match(await page.$eval("#tool-measure .result", (el) => el.textContent ?? ""), /"value":42/);

  const frameHandle = await page.waitForSelector("#tool-measure iframe.app");
  assert.equal(await frameHandle!.evaluate((el) => el.getAttribute("sandbox")), "allow-scripts");
  assert.match(String(await frameHandle!.evaluate((el) => el.getAttribute("src"))), /frame\.html\?csp=/);
  const app = (await frameHandle!.contentFrame())!;
  await app.waitForFunction(() => window.probe && window.probe.phase === "done", { polling: 100 });
  const probe = await app.evaluate(() => JSON.parse(JSON.stringify(window.probe)));

  // Handshake: the host's context names the tool; tool input then result arrive.
  assert.equal(probe.context.toolInfo.tool.name, "measure");
  assert.equal(probe.context.displayMode, "inline");
  assert.deepEqual(probe.hostCapabilities.sandbox.csp, { connectDomains: [allowed.origin] });
  assert.equal(probe.input.label, "first");
  assert.deepEqual(probe.result.structuredContent, { label: "first", value: 42 });
  // Calls back: an app-visible tool runs, a model-only one is refused by the host, reads are proxied.
  assert.equal(probe.callBack, "echo: hello from the app");
  assert.match(probe.refused, /not callable from an app/);
  assert.equal(probe.read, "a note for the app");
  // What the host does not offer is refused, not half done.
  assert.match(probe.openLink, /Method not found: ui\/open-link/);
  assert.deepEqual(echoed, ["hello from the app"]);

  // The sandbox: an opaque origin without the console's DOM, cookies or storage, and only the declared origin on the network.
  assert.deepEqual(probe.reach, {
    parentDocument: "blocked",
    cookie: "blocked",
    storage: "blocked",
    consoleOrigin: "blocked",
    allowed: "allowed-ok",
    denied: "blocked",
    deniedImage: "blocked",
  });
  assert.deepEqual(denied.hits, []);
  assert.deepEqual(allowed.hits, ["/"]);
  assert.ok(probe.violations.includes("connect-src") && probe.violations.includes("img-src"), String(probe.violations));

  // size-changed: the frame takes the App's height.
  assert.match(await frameHandle!.evaluate((el) => el.style.height), /^\d+px$/);
  await page.setViewport({ width: 1000, height: 1400 });
  await page.screenshot({ path: join(outputDir("console"), "console-sdk-app.png") });

  // A second run tears the first App down (it gets ui/resource-teardown and answers); this
  // one asks to be closed itself, and the host removes its frame.
  await page.$eval("#tool-measure input[name=label]", (el) => (el.value = ""));
  await page.type("#tool-measure input[name=label]", "second");
  await page.click("#tool-measure input[name=close]");
  await page.click("#tool-measure button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-measure .run-status")?.textContent ?? "").startsWith("Done"), { polling: "mutation" });
  await page.waitForFunction(() => document.querySelector("#tool-measure .result") && !document.querySelector("#tool-measure iframe.app"), { polling: 100 });
  assert.deepEqual(echoed, ["hello from the app", "teardown", "hello from the app", "teardown"]);
  assert.deepEqual(problems, []);
});
