// The Rappture App in a real browser: the tool console runs a Rappture tool and hosts the
// App its result links to, which draws the run's curves (one plot per group, with a legend)
// and histograms with their axes and units. A screenshot goes to spec/.output/rappture.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { McpServer } from "../../lib/index.ts";
import { browserSkip, launchBrowser, outputDir } from "../helpers/browser.ts";

const skip = browserSkip();
const FERMI = fileURLToPath(new URL("../../fixtures/rappture/fermi/tool.xml", import.meta.url));

interface Node {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { querySelectorAll(selector: string): Node[]; querySelector(selector: string): Node | null };

test("the console runs a Rappture tool and its App plots the curves with axes, units and a legend", { skip, timeout: 120_000 }, async (t) => {
  const server = new McpServer("rappture-hub").rappture(FERMI);
  const running = await server.listen({ port: 0 });
  t.after(() => running.close());
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push((err as Error).message));
  await page.setViewport({ width: 900, height: 1400 });
  await page.goto(running.url);
  await page.waitForSelector("body[data-ready]");
  await page.click("#tool-fermi > summary");
  await page.click("#tool-fermi button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-fermi .run-status")?.textContent ?? "").startsWith("Done"), { polling: "mutation" });
  const frame = await page.waitForSelector("#tool-fermi iframe.app");
  const app = await frame!.contentFrame();
  await app.waitForFunction(() => document.querySelectorAll("svg").length === 2);
  const headings = await app.$$eval("h3", (els) => els.map((e) => e.textContent));
  assert.deepEqual(headings, ["Occupancy", "States per bin"]);
  const legend = await app.$$eval("svg:first-of-type .legend", (els) => els.map((e) => e.textContent));
  assert.deepEqual(legend, ["Fermi-Dirac Factor", "Boltzmann approximation"]);
  const labels = await app.$$eval("svg:first-of-type .label", (els) => els.map((e) => e.textContent));
  assert.deepEqual(labels, ["Energy (eV)", "Fermi-Dirac Factor"]);
  assert.equal(await app.$$eval("svg:first-of-type polyline", (els) => els.length), 2);
  assert.equal(await app.$$eval("svg:last-of-type rect", (els) => els.length), 3);
  // A viewport as tall as the page and a clip, not an element capture: the sandboxed frame runs
  // in its own process, which element and fullPage captures leave blank.
  const height = await page.evaluate(() => (document as unknown as { documentElement: { scrollHeight: number } }).documentElement.scrollHeight);
  await page.setViewport({ width: 900, height });
  const box = await frame!.boundingBox();
  await page.screenshot({
    path: join(outputDir("rappture"), "rappture-plot-app.png"),
    clip: { x: 0, y: Math.max(0, box!.y - 40), width: 900, height: box!.height + 60 },
  });
  assert.deepEqual(problems, []);
});
