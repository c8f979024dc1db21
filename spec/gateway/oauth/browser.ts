// Headless Chromium for the sign-in specs, driven through puppeteer-core. Where no browser
// is installed the specs skip with a reason, except on CI, where that is a failure.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import type { Browser, Page } from "puppeteer-core";

export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROME_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => Boolean(p));
  return candidates.find((p) => existsSync(p));
}

/** Why the browser specs can't run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (chromiumPath()) return undefined;
  if (process.env.CI) throw new Error("no Chromium found (set CHROME_PATH); CI must run the browser specs");
  return "no Chromium found: set CHROME_PATH or install Debian's chromium package";
}

export async function launchBrowser(t: TestContext): Promise<Browser> {
  const { default: puppeteer } = await import("puppeteer-core");
  const profile = await mkdtemp(join(tmpdir(), "oauth-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath()!,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
    protocolTimeout: 60_000,
  });
  t.after(async () => {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  });
  return browser;
}

/** Where spec screenshots go (git-ignored), so a person can look at the pages. */
export function outputDir(): string {
  return join(process.cwd(), "spec", ".output", "oauth");
}

export interface BrowserSignIn {
  readonly username: string;
  readonly password: string;
  /** Screenshot file names for the login and consent pages, in outputDir(). */
  readonly screenshots?: { login: string; consent: string };
}

/** Signs in and approves on the hub's pages, starting at the authorization URL. */
export async function signInWithBrowser(page: Page, authorizationUrl: string, flow: BrowserSignIn): Promise<void> {
  await page.goto(authorizationUrl, { waitUntil: "load" });
  await page.waitForSelector("#username");
  if (flow.screenshots) await page.screenshot({ path: join(outputDir(), flow.screenshots.login), fullPage: true });
  await page.type("#username", flow.username);
  await page.type("#password", flow.password);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button[type=submit]")]);
  await page.waitForSelector('button[value="approve"]');
  if (flow.screenshots) await page.screenshot({ path: join(outputDir(), flow.screenshots.consent), fullPage: true });
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('button[value="approve"]')]);
}
