// The sign-in step of the OAuth specs in headless Chromium (../../helpers/browser.ts finds
// and starts it): log in and approve on the hub's own pages.
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { browserSkip, launchBrowser, outputDir as sharedOutputDir } from "../../helpers/browser.ts";

/** Why the browser specs can't run here, or undefined when they can (throws on CI). */
export function browserSkipReason(): string | undefined {
  return browserSkip() || undefined;
}

export { launchBrowser };

/** Where spec screenshots go (git-ignored), so a person can look at the pages. */
export function outputDir(): string {
  return sharedOutputDir("oauth");
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
