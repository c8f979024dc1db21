// MCP Inspector signs in to the hub, as its command-line client and as its web app. The CLI to the hub: it discovers, registers, prints
// discovers, registers, prints the authorization URL and waits on its loopback callback;
// headless Chromium signs in and approves; the CLI exchanges the code and calls a tool. The web
// app is driven in the same browser: its connect switch leads to the hub's sign-in pages and back. Runs when the Inspector (and a
// Node >= 22 for it) is installed in a cache outside the project, like the conformance suite.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { browserSkipReason, launchBrowser, signInWithBrowser } from "./browser.ts";
import { PASSWORD, USER, startHub } from "./hub.ts";
import { freePort } from "../../helpers/launcher-fixtures.ts";

const cacheRoot = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
const inspector = join(cacheRoot, "mcp-inspector", "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
const node22 =
  process.env.INSPECTOR_NODE ??
  join(cacheRoot, "hubmcp", `conformance-${process.env.CONFORMANCE_VERSION ?? "0.2.0-alpha.12"}`, "node_modules", "node", "bin", "node");

function missing(): string | undefined {
  const browser = browserSkipReason();
  if (browser) return browser;
  if (!existsSync(inspector))
    return `MCP Inspector is not installed in ${join(cacheRoot, "mcp-inspector")} (npm install @modelcontextprotocol/inspector there)`;
  if (!existsSync(node22)) return "no Node >= 22 for the Inspector (set INSPECTOR_NODE)";
  return undefined;
}

/** Off CI, a machine without the Inspector skips with the reason; in CI (which installs it) it fails instead. */
function skipReason(): string | undefined {
  const reason = missing();
  if (reason && process.env.CI) throw new Error(`CI must run the MCP Inspector specs: ${reason}`);
  return reason;
}

test("MCP Inspector's CLI signs in through the browser and calls a tool", { skip: skipReason(), timeout: 180_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const home = await mkdtemp(join(tmpdir(), "inspector-home-"));
  t.after(() => rm(home, { recursive: true, force: true }));
  const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const serverUrl = `${gateway.publicUrl}/api/mcp/mcpdemo/mcp`;
  const child = spawn(node22, [inspector, "--cli", serverUrl, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=3"], {
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      BROWSER: "true",
      MCP_AUTO_OPEN_ENABLED: "true",
      MCP_OAUTH_CALLBACK_URL: callback,
      MCP_INSPECTOR_SECRET_STORE: "memory",
    },
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /(http\S+\/developer\/oauth\/authorize\?\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the Inspector exited before asking for the browser:\n${stdout}\n${stderr}`)));
  });
  assert.equal(new URL(authorizationUrl).searchParams.get("redirect_uri"), callback);
  const browser = await launchBrowser(t);
  await signInWithBrowser(await browser.newPage(), authorizationUrl, { username: USER, password: PASSWORD });
  assert.equal(await exited, 0, `${stdout}\n${stderr}`);
  const result = JSON.parse(stdout) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  assert.notEqual(result.isError, true);
  assert.match(result.content[0]!.text, /5/);
});

test("MCP Inspector's web app connects through the hub's sign-in pages", { skip: skipReason(), timeout: 180_000 }, async (t) => {
  const { gateway } = await startHub(t);
  const home = await mkdtemp(join(tmpdir(), "inspector-home-"));
  t.after(() => rm(home, { recursive: true, force: true }));
  const catalog = join(home, "catalog.json");
  await writeFile(catalog, JSON.stringify({ mcpServers: { hub: { type: "streamable-http", url: `${gateway.publicUrl}/api/mcp/mcpdemo/mcp` } } }));
  const [port, sandbox] = [await freePort(), await freePort()];
  const child = spawn(node22, [inspector, "--web", "--catalog", catalog], {
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      BROWSER: "none",
      CLIENT_PORT: String(port),
      MCP_SANDBOX_PORT: String(sandbox),
      DANGEROUSLY_OMIT_AUTH: "true",
      MCP_INSPECTOR_SECRET_STORE: "memory",
    },
  });
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  });
  let output = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const app = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /up and running at:\s+(http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`the Inspector exited before serving:\n${output}`)));
  });
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(app, { waitUntil: "networkidle2" });
  const toggle = 'input[aria-label="Connect or disconnect \\"hub\\""]';
  await page.waitForSelector(toggle);
  await page.click(toggle);
  await page.waitForSelector("#username");
  assert.ok(page.url().startsWith(`${gateway.publicUrl}/developer/oauth/authorize?`));
  await page.type("#username", USER);
  await page.type("#password", PASSWORD);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("button[type=submit]")]);
  await page.waitForSelector('button[value="approve"]');
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('button[value="approve"]')]);
  // Browser-side expressions as strings: the specs compile without the DOM library.
  await page.waitForFunction('document.body.innerText.includes("Connected")', { timeout: 60_000 });
  assert.equal(await page.$eval(toggle, (e) => (e as unknown as { checked: boolean }).checked), true);
  assert.match(String(await page.evaluate("document.body.innerText")), /hubmcp-demo/);
});
