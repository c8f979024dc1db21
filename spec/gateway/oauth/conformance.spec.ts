// The official MCP conformance suite's authorization-server scenarios (metadata, and an
// authorization code + PKCE round trip) against the hub, with the browser step automated:
// the suite prints the authorization URL, headless Chromium signs in and approves, and the
// suite's own callback server receives the code and exchanges it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mkdir, writeFile } from "node:fs/promises";
import { browserSkipReason, launchBrowser, outputDir, signInWithBrowser } from "./browser.ts";
import { PASSWORD, USER, startHub } from "./hub.ts";
import { freePort } from "../../helpers/launcher-fixtures.ts";

const VERSION = process.env.CONFORMANCE_VERSION ?? "0.2.0-alpha.12";
// Where `npm run conformance` installs the suite (CI runs it before the specs).
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "hubmcp", `conformance-${VERSION}`);
const node22 = join(cache, "node_modules", "node", "bin", "node");
const suite = join(cache, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

function skipReason(): string | undefined {
  const browser = browserSkipReason();
  if (browser) return browser;
  if (existsSync(node22) && existsSync(suite)) return undefined;
  if (process.env.CI) throw new Error(`the conformance suite ${VERSION} is missing from ${cache}: run npm run conformance first`);
  return `the conformance suite ${VERSION} is not installed in ${cache} (npm install node@22 @modelcontextprotocol/conformance@${VERSION} there)`;
}

test("conformance suite: authorization-server scenarios pass against the hub", { skip: skipReason(), timeout: 180_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const port = await freePort();
  const registered = await fetch(`${gateway.publicUrl}/authorize/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "MCP conformance suite", redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: "none" }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const child = spawn(
    node22,
    [
      suite,
      "authorization",
      "--url",
      `${gateway.publicUrl}/authorize`,
      "--client-id",
      clientId,
      "--port",
      String(port),
      "--resource",
      `${gateway.publicUrl}/api/mcp/mcpdemo/mcp`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let output = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /^(http\S+\/developer\/oauth\/authorize\?\S+)$/m.exec(output);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the suite exited before asking for the browser:\n${output}`)));
  });
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await signInWithBrowser(page, authorizationUrl, { username: USER, password: PASSWORD });
  const code = await exited;
  await mkdir(outputDir(), { recursive: true });
  await writeFile(join(outputDir(), "conformance-authorization.txt"), output);
  const counts = /Total:\s*(\d+) passed, (\d+) failed/.exec(output);
  t.diagnostic(`conformance authorization: ${counts ? `${counts[1]} passed, ${counts[2]} failed` : "no summary line"}`);
  assert.equal(code, 0, output);
  assert.doesNotMatch(output, /FAILURE|✗/);
});
