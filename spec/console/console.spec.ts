// The tool console in a real browser (headless Chromium): the demo's tools run from their
// forms, with structured results, an app frame, progress, elicitation and cancellation.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { server as demo } from "../../fixtures/demo/app.ts";
import { content, McpServer, type ToolContext } from "../../lib/index.ts";
import { startReverseProxy } from "../../lib/proxy/reverse-proxy.ts";
import { browserSkip, launchBrowser, outputDir } from "../helpers/browser.ts";

const skip = browserSkip();

// Globals of the page, for the callbacks puppeteer runs there: the project compiles without
// the DOM library, so these are typed only as far as the callbacks use them.
interface PageElement {
  id: string;
  name: string;
  value: string | number;
  max: number;
  open: boolean;
  hidden: boolean;
  checked: boolean;
  disabled: boolean;
  naturalWidth: number;
  textContent: string | null;
  selectedOptions: PageElement[];
}
declare const document: {
  activeElement: PageElement;
  body: unknown;
  documentElement: { scrollHeight: number; scrollWidth: number; clientWidth: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): PageElement[];
};
declare function getComputedStyle(element: unknown): { backgroundColor: string };
type HTMLInputElement = PageElement;
type HTMLDetailsElement = PageElement;
type HTMLProgressElement = PageElement;
type HTMLButtonElement = PageElement;
type HTMLSelectElement = PageElement;

/** A page that fails the test on any script error or blocked (CSP) load. */
async function openConsole(t: TestContext, browser: Awaited<ReturnType<typeof launchBrowser>>, url: string, allowed?: RegExp): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${(err as Error).message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && !allowed?.test(msg.text())) problems.push(`console error: ${msg.text()}`);
  });
  // The browser closes its pages; this only checks what they reported.
  t.after(() => assert.deepEqual(problems, []));
  await page.goto(url);
  await page.waitForSelector("body[data-ready]");
  assert.equal(await text(page, "#status"), "Connected");
  return page;
}

const text = (page: Page, selector: string): Promise<string> => page.$eval(selector, (el) => el.textContent ?? "");

async function openCard(page: Page, id: string): Promise<void> {
  if (!(await page.$eval(`#${id}`, (el) => (el as HTMLDetailsElement).open))) await page.click(`#${id} > summary`);
}

async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ""));
  await page.type(selector, value);
}

/** Waits until the card's run status reads `status` (or starts with it). */
function statusIs(page: Page, card: string, status: string): Promise<unknown> {
  return page.waitForFunction(
    (sel: string, want: string) => (document.querySelector(sel)?.textContent ?? "").startsWith(want),
    { polling: "mutation" },
    `#${card} .run-status`,
    status,
  );
}

test("the demo's console runs tools in a browser", { skip }, async (t) => {
  const browser = await launchBrowser(t);
  const running = await demo.listen({ port: 0 });
  t.after(() => running.close());
  const page = await openConsole(t, browser, running.url);
  const shots = outputDir("console");

  await t.test("lists tools, resources and prompts with their forms", async () => {
    assert.equal(await text(page, "#server-title"), "hubmcp-demo");
    const tools = await page.$$eval("#tools > details", (cards) => cards.map((c) => c.id));
    // get_job_result is the console's own business (it polls jobs itself): no form for it.
    assert.deepEqual(tools, ["tool-add", "tool-divide", "tool-projectile", "tool-slow_sum", "tool-ask_user"]);
    assert.match(await text(page, "#tool-projectile > summary"), /Projectile motion/);
    assert.equal(await page.$eval("#tool-projectile input[name=g]", (el) => (el as HTMLInputElement).value), "9.81");
    assert.equal(await page.$eval("#tool-projectile input[name=angle]", (el) => el.getAttribute("max")), "90");
    assert.ok(await page.$("#resource-config___demo_settings"));
    assert.ok(await page.$("#prompt-explain input[name=topic][required]"));
  });

  await t.test("add: invalid input is shown before sending, then the sum", async () => {
    await openCard(page, "tool-add");
    await fill(page, "#tool-add input[name=b]", "3");
    await page.click("#tool-add button.primary");
    await page.waitForSelector("#tool-add .form-error:not([hidden])");
    assert.match(await text(page, "#tool-add .form-error"), /a \(is required\)/);
    assert.equal(await page.$eval("#tool-add input[name=a]", (el) => el.getAttribute("aria-invalid")), "true");
    assert.equal(await page.$("#tool-add .run"), null, "nothing was sent");
    await fill(page, "#tool-add input[name=a]", "2");
    await page.click("#tool-add button.primary");
    await statusIs(page, "tool-add", "Done");
    assert.equal(await text(page, "#tool-add .result pre"), "5");
  });

  await t.test("divide, keyboard only: a tool error is shown as one", async () => {
    await page.focus("#tool-divide > summary");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#tool-divide[open]");
    await page.keyboard.press("Tab");
    await page.keyboard.type("1");
    await page.keyboard.press("Tab");
    await page.keyboard.type("0");
    await page.keyboard.press("Enter");
    await statusIs(page, "tool-divide", "Finished with an error");
    assert.equal(await text(page, "#tool-divide .is-error .error-title"), "The tool reported an error");
    assert.equal(await text(page, "#tool-divide .is-error pre"), "Cannot divide by zero");
  });

  await t.test("projectile: structured result as a tree, and its app in a sandboxed frame", async () => {
    await openCard(page, "tool-projectile");
    await fill(page, "#tool-projectile input[name=speed]", "20");
    await fill(page, "#tool-projectile input[name=angle]", "45");
    await page.click("#tool-projectile button.primary");
    await statusIs(page, "tool-projectile", "Done");
    const leaves = await page.$$eval("#tool-projectile details.json .leaf", (els) => els.map((e) => e.textContent));
    assert.deepEqual(leaves, ["range_m: 40.775", "flight_time_s: 2.883", "max_height_m: 10.194"]);
    const frame = await page.waitForSelector("#tool-projectile iframe.app");
    assert.equal(await frame!.evaluate((el) => el.getAttribute("sandbox")), "allow-scripts");
    const app = await frame!.contentFrame();
    await app.waitForFunction(() => document.querySelector("#caption")?.textContent?.startsWith("range 40.77 m"));
  });

  await t.test("slow_sum: a task whose progress bar moves, then its result", async () => {
    await openCard(page, "tool-slow_sum");
    await fill(page, "#tool-slow_sum input[name=values]", "1,2,3,4");
    await fill(page, "#tool-slow_sum input[name=delay]", "2");
    await page.click("#tool-slow_sum button.primary");
    await page.waitForFunction(
      () => {
        const bar = document.querySelector("#tool-slow_sum progress");
        return bar !== null && !bar.hidden && Number(bar.value) > 0 && Number(bar.value) < bar.max;
      },
      { polling: "mutation" },
    );
    assert.match(await text(page, "#tool-slow_sum .run-status"), /^Task Working/);
    await (await page.$("#tool-slow_sum"))!.screenshot({ path: join(shots, "console-progress.png") });
    await statusIs(page, "tool-slow_sum", "Done");
    assert.equal(await text(page, "#tool-slow_sum .result pre"), "10");
    assert.equal(await page.$eval("#tool-slow_sum progress", (el) => (el as HTMLProgressElement).value), 4);
  });

  await t.test("ask_user: the elicitation form, answered, declined, and cancelled with the call", async () => {
    await openCard(page, "tool-ask_user");
    await page.click("#tool-ask_user button.primary");
    await page.waitForSelector("#tool-ask_user form.ask input[name=name]");
    assert.equal(await text(page, "#tool-ask_user .ask-title"), "What is your name?");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), "name", "focus moves to the question");
    await page.type("#tool-ask_user form.ask input[name=name]", "Ada");
    await (await page.$("#tool-ask_user"))!.screenshot({ path: join(shots, "console-elicitation.png") });
    await page.click("#tool-ask_user form.ask button.primary");
    await statusIs(page, "tool-ask_user", "Done");
    assert.equal(await text(page, "#tool-ask_user .result pre"), "Hello, Ada!");

    await page.click("#tool-ask_user button.primary");
    await page.waitForSelector("#tool-ask_user form.ask");
    const [, decline] = await page.$$("#tool-ask_user form.ask button");
    await decline!.click();
    await statusIs(page, "tool-ask_user", "Done");
    assert.equal(await text(page, "#tool-ask_user .result pre"), "You declined to give your name.");

    await page.click("#tool-ask_user button.primary");
    await page.waitForSelector("#tool-ask_user form.ask");
    await page.click("#tool-ask_user button.cancel");
    await statusIs(page, "tool-ask_user", "Cancelled");
    assert.equal(await page.$("#tool-ask_user form.ask"), null, "the question is withdrawn");
    assert.equal(await page.$eval("#tool-ask_user button.primary", (el) => (el as HTMLButtonElement).disabled), false);
  });

  await t.test("a long task is cancelled with the cancel button", async () => {
    await fill(page, "#tool-slow_sum input[name=delay]", "600");
    await page.click("#tool-slow_sum button.primary");
    await statusIs(page, "tool-slow_sum", "Task Working");
    await page.click("#tool-slow_sum button.cancel");
    await statusIs(page, "tool-slow_sum", "Cancelled");
    assert.equal(await page.$("#tool-slow_sum .result"), null);
  });

  await t.test("resources and prompts are read from their cards", async () => {
    await openCard(page, "resource-config___demo_settings");
    await page.click("#resource-config___demo_settings button.primary");
    await page.waitForSelector("#resource-config___demo_settings details.json");
    assert.match(await text(page, "#resource-config___demo_settings details.json"), /units: "SI"/);
    await openCard(page, "prompt-explain");
    await page.type("#prompt-explain input[name=topic]", "inertia");
    await page.click("#prompt-explain button.primary");
    await page.waitForSelector("#prompt-explain .messages li");
    assert.match(await text(page, "#prompt-explain .messages li"), /Explain inertia to a first-year physics student/);
  });

  await t.test("screenshots: light, dark and phone width", async () => {
    // A viewport as tall as the page rather than fullPage: the sandboxed app frame runs in
    // its own process, which fullPage captures leave blank.
    const shoot = async (name: string, width: number, mobile = false): Promise<void> => {
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewport({ width, height, isMobile: mobile, deviceScaleFactor: 1 });
      await page.screenshot({ path: join(shots, name) });
    };
    await page.evaluate(() => document.querySelectorAll("details.card").forEach((d) => ((d as HTMLDetailsElement).open = d.id === "tool-projectile")));
    await shoot("console-readme.png", 1000);
    await page.evaluate(() => document.querySelectorAll("details.card").forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await shoot("console-light.png", 1100);
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
    await shoot("console-dark.png", 1100);
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(15, 18, 23)");
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
    // A mobile viewport reloads the page.
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.waitForSelector("body[data-ready]");
    await openCard(page, "tool-projectile");
    await fill(page, "#tool-projectile input[name=speed]", "30");
    await fill(page, "#tool-projectile input[name=angle]", "60");
    await page.click("#tool-projectile button.primary");
    await statusIs(page, "tool-projectile", "Done");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, "nothing is wider than a phone screen");
    await shoot("console-phone.png", 390, true);
  });
});

test("a server restart (start_mcp --watch): the console starts a new session and shows the new lists", { skip }, async (t) => {
  const browser = await launchBrowser(t);
  const before = new McpServer("restarting");
  before.tool(() => 1, { name: "old_tool" });
  const first = await before.listen({ port: 0 });
  t.after(() => first.close());
  // While the server is down the page's reconnects are refused, and the old session is a 404.
  const page = await openConsole(t, browser, first.url, /ERR_CONNECTION_REFUSED|404/);
  await page.waitForSelector("#tool-old_tool");
  await first.close();
  const after = new McpServer("restarting");
  after.tool(() => 2, { name: "new_tool" });
  const second = await after.listen({ port: first.port });
  t.after(() => second.close());
  await page.waitForSelector("#tool-new_tool");
  assert.equal(await page.$("#tool-old_tool"), null);
  assert.equal(await text(page, "#status"), "The server restarted; its lists were reloaded");
});

test("the console works under a path prefix and behind the reverse proxy", { skip }, async (t) => {
  const browser = await launchBrowser(t);
  const app = new McpServer("prefixed");
  app.tool(({ x }: { x: number }) => x * 2, { name: "double", inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } });
  const running = await app.listen({ port: 0, pathPrefix: "/weber/123/abc/5" });
  t.after(() => running.close());
  const proxy = await startReverseProxy({ target: `http://127.0.0.1:${running.port}`, pathPrefix: "/outer" });
  t.after(() => proxy.close());

  const urls = [running.url, running.url.replace(/\/$/, ""), `${proxy.url}weber/123/abc/5/`];
  for (const url of urls) {
    await t.test(url, async (st) => {
      const page = await openConsole(st, browser, url);
      assert.match(page.url(), /\/weber\/123\/abc\/5\/$/);
      await openCard(page, "tool-double");
      await page.type("#tool-double input[name=x]", "21");
      await page.click("#tool-double button.primary");
      await statusIs(page, "tool-double", "Done");
      assert.equal(await text(page, "#tool-double .result pre"), "42");
    });
  }
});

/** A one-sample PCM WAV file. */
function tinyWav(): Buffer {
  const wav = Buffer.alloc(46);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(38, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(2, 40);
  return wav;
}

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

test("richer forms and results: nested objects, choices, lists, log lines, images and audio", { skip }, async (t) => {
  const browser = await launchBrowser(t);
  const app = new McpServer("rich");
  app.tool((args: Record<string, unknown>) => args, {
    name: "configure",
    inputSchema: {
      type: "object",
      properties: {
        unit: { type: "string", enum: ["m", "km"], default: "km" },
        verbose: { type: "boolean" },
        steps: { type: "array", items: { type: "integer" } },
        origin: { type: "object", properties: { lat: { type: "number", minimum: -90, maximum: 90 }, lon: { type: "number" } }, required: ["lat"] },
      },
      required: ["unit", "origin"],
    },
  });
  app.tool(
    async (_args: Record<string, unknown>, ctx: ToolContext) => {
      ctx.info("starting", "media");
      ctx.warning({ note: "almost done" });
      return { content: [content.image(PIXEL, "image/png"), content.audio(tinyWav(), "audio/wav"), content.text("two media blocks")] };
    },
    { name: "media", inputSchema: { type: "object" }, context: true },
  );
  app.resource("data://runs/{id}", ({ id }: { id: string }) => ({ run: id }), { name: "run", description: "One run by its id" });
  const running = await app.listen({ port: 0 });
  t.after(() => running.close());
  // Chromium logs the 404 that tells the page its session has ended.
  const page = await openConsole(t, browser, running.url, /status of 404/);

  await openCard(page, "tool-configure");
  assert.equal(await page.$eval("#tool-configure select[name=unit]", (el) => (el as HTMLSelectElement).selectedOptions[0]!.textContent), "km");
  await page.click("#tool-configure input[name=verbose]");
  await page.type("#tool-configure textarea[name=steps]", "1\n2");
  await page.type("#tool-configure fieldset input[name=lat]", "95");
  await page.click("#tool-configure button.primary");
  await page.waitForSelector("#tool-configure .form-error:not([hidden])");
  assert.match(await text(page, "#tool-configure .form-error"), /origin\.lat \(must be at most 90\)/);
  await fill(page, "#tool-configure fieldset input[name=lat]", "45");
  await page.click("#tool-configure button.primary");
  await statusIs(page, "tool-configure", "Done");
  assert.deepEqual(JSON.parse(await text(page, "#tool-configure .result pre")), { unit: "km", verbose: true, steps: [1, 2], origin: { lat: 45 } });

  await openCard(page, "tool-media");
  await page.click("#tool-media button.primary");
  await statusIs(page, "tool-media", "Done");
  assert.deepEqual(await page.$$eval("#tool-media .log li", (items) => items.map((li) => li.textContent)), [
    "info media: starting",
    'warning {"note":"almost done"}',
  ]);
  await page.waitForFunction(() => document.querySelector("#tool-media img.media")?.naturalWidth === 1);
  assert.match(await page.$eval("#tool-media audio", (el) => el.getAttribute("src")!), /^data:audio\/wav;base64,UklGR/);
  assert.equal(await text(page, "#tool-media .result pre"), "two media blocks");

  await openCard(page, "template-data___runs__id_");
  await page.type("#template-data___runs__id_ input[name=id]", "a/42");
  await page.click("#template-data___runs__id_ button.primary");
  await page.waitForSelector("#template-data___runs__id_ details.json");
  assert.equal(await text(page, "#template-data___runs__id_ .uri"), "data://runs/a%2F42 application/json");
  assert.equal(await text(page, "#template-data___runs__id_ .leaf"), 'run: "a/42"');

  // The session ends on the server (expiry, restart): the next call starts a new one.
  const ended = [...app.sessions.values()].map((session) => session.id);
  for (const id of ended) app.sessions.delete(id);
  await fill(page, "#tool-configure textarea[name=steps]", "7");
  await page.click("#tool-configure button.primary");
  await page.waitForFunction(() => (document.querySelector("#tool-configure .result pre")?.textContent ?? "").includes("[7]"));
  assert.equal(await text(page, "#tool-configure .run-status"), "Done");
  assert.equal(app.sessions.size, 1);
  assert.ok(!ended.includes([...app.sessions.values()][0]!.id));
});
