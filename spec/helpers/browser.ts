// Finding and starting a headless Chromium for the browser specs (console, OAuth sign-in).
// Without a browser they skip, except on CI, where a missing browser is a failure with the
// fix in the message.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser } from "puppeteer-core";

export const INSTALL_HINT = "install chromium: apt-get install -y chromium";

/** The browser to drive: CHROME_PATH, else Debian's chromium. */
export function chromePath(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const candidate of [env.CHROME_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (candidate && existsSync(candidate)) return candidate;
  return null;
}

/** `skip` option for node:test: a reason when there is no browser; throws on CI instead. */
export function browserSkip(env: NodeJS.ProcessEnv = process.env): string | false {
  if (chromePath(env)) return false;
  if (env.CI) throw new Error(`No Chromium found (CHROME_PATH or /usr/bin/chromium): ${INSTALL_HINT}`);
  return `no Chromium found (set CHROME_PATH or ${INSTALL_HINT})`;
}

/** Where a spec area's screenshots go: spec/.output/<area> (git-ignored), for a person to look at. */
export function outputDir(area: string): string {
  const dir = fileURLToPath(new URL(`../.output/${area}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function launchBrowser(t: { after(fn: () => unknown): void }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "hubmcp-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromePath()!,
    headless: true,
    timeout: 30_000,
    protocolTimeout: 60_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  t.after(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return browser;
}
