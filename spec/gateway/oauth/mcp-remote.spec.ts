// mcp-remote, the stdio-to-HTTP proxy many desktop assistants use, signs in to the hub through
// the hub's OpenID provider: it discovers the hub from a 401, registers, prints the
// authorization URL and waits on its loopback callback; headless Chromium follows the URL
// through the hub's sign-in page to the provider's login (a real oidc-provider) and back;
// then the official SDK speaks MCP to mcp-remote over its stdio, for a tool and for `/mcp`.
// Runs when mcp-remote is installed in a cache outside the project, like the Inspector.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Page } from "puppeteer-core";
import { browserSkipReason, launchBrowser } from "./browser.ts";
import { startIdentityHub } from "./oidc-flow.ts";
import { freePort } from "../../helpers/launcher-fixtures.ts";

const cacheRoot = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
const proxy = join(cacheRoot, "mcp-remote", "node_modules", "mcp-remote", "dist", "proxy.js");

function missing(): string | undefined {
  const browser = browserSkipReason();
  if (browser) return browser;
  if (!existsSync(proxy)) return `mcp-remote is not installed in ${join(cacheRoot, "mcp-remote")} (npm install mcp-remote there)`;
  return undefined;
}

/** Off CI, a machine without mcp-remote skips with the reason; in CI (which installs it) it fails instead. */
function skipReason(): string | undefined {
  const reason = missing();
  if (reason && process.env.CI) throw new Error(`CI must run the mcp-remote spec: ${reason}`);
  return reason;
}

/** mcp-remote for `serverUrl` on the SDK's stdio transport, its config in a private folder. */
async function startProxy(t: TestContext, serverUrl: string): Promise<{ transport: StdioClientTransport; callback: string }> {
  const home = await mkdtemp(join(tmpdir(), "mcp-remote-home-"));
  t.after(() => rm(home, { recursive: true, force: true }));
  const port = await freePort();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxy, serverUrl, String(port), "--host", "127.0.0.1"],
    cwd: home,
    stderr: "pipe",
    // BROWSER=true: its browser opener succeeds doing nothing; the spec's Chromium is the browser.
    env: { PATH: process.env.PATH ?? "", HOME: home, MCP_REMOTE_CONFIG_DIR: join(home, "mcp-auth"), BROWSER: "true" },
  });
  return { transport, callback: `http://127.0.0.1:${port}/` };
}

/** The authorization URL mcp-remote prints on stderr; rejects when the connection ends first. */
function authorizationUrl(transport: StdioClientTransport, connected: Promise<unknown>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stderr = "";
    // The SDK types the pipe as a Stream; it is a byte stream, and the URL is ASCII.
    transport.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      // Up to the line's end, so a URL split across two chunks is not taken half-read.
      const match = /(http\S+\/developer\/oauth\/authorize\?\S+)\s/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    connected.then(
      () => reject(new Error("mcp-remote connected without asking for a sign-in")),
      (error: unknown) => reject(new Error(`mcp-remote failed before asking for the browser: ${String(error)}\n${stderr}`)),
    );
  });
}

/** Clicks and waits for the page it leads to. */
async function go(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

/** From the hub's sign-in page through the provider (as `login`) to mcp-remote's callback. */
async function signIn(page: Page, url: string, login: string, callback: string): Promise<void> {
  await page.goto(url, { waitUntil: "load" });
  for (let i = 0; i < 8; i++) {
    if (page.url().startsWith(callback)) return;
    const html = await page.content();
    if (html.includes('id="provider"')) await go(page, "#provider");
    else if (html.includes('name="prompt" value="login"')) {
      await page.type('input[name="login"]', login);
      await page.type('input[name="password"]', "any");
      await go(page, 'button[type="submit"]');
    } else if (html.includes('name="prompt" value="consent"')) await go(page, 'button[type="submit"]');
    else if (html.includes('value="approve"')) await go(page, 'button[value="approve"]');
    else throw new Error(`the sign-in stopped at ${page.url()}`);
  }
  throw new Error("the sign-in went round in circles");
}

test("mcp-remote lands at the provider's login and comes back with a working token for a tool and for /mcp", {
  skip: skipReason(),
  timeout: 180_000,
}, async (t) => {
  // t.after runs hooks in the order they were added: the proxies and the browser go first, or
  // the hub's and the provider's close wait on the connections they hold open.
  const clients: Client[] = [];
  t.after(() => Promise.all(clients.map((client) => client.close())));
  const browser = await launchBrowser(t);
  const hub = await startIdentityHub(t);
  hub.provider.groups.set("grace", ["staff"]);
  const page = await browser.newPage();
  const visited: URL[] = [];
  page.on("request", (request) => visited.push(new URL(request.url())));

  const connect = async (serverUrl: string): Promise<Client> => {
    const { transport, callback } = await startProxy(t, serverUrl);
    const client = new Client({ name: "mcp-remote-spec", version: "1.0.0" });
    clients.push(client);
    const connected = client.connect(transport, { timeout: 120_000 });
    connected.catch(() => undefined);
    await signIn(page, await authorizationUrl(transport, connected), "grace", callback);
    await connected;
    return client;
  };
  const add = async (client: Client, name: string): Promise<string> => {
    const result = (await client.callTool({ name, arguments: { a: 2, b: 3 } })) as { content: Array<{ text: string }>; isError?: boolean };
    assert.notEqual(result.isError, true);
    return result.content[0]!.text;
  };

  const forTool = await connect(`${hub.gateway.publicUrl}/api/mcp/private/mcp`);
  const atProvider = visited.filter((u) => u.origin === hub.provider.issuer && u.pathname.startsWith("/interaction/") && u.pathname.split("/").length === 3);
  assert.ok(atProvider.length > 0, "the person was at the provider's login page");
  assert.ok((await forTool.listTools()).tools.some((tool) => tool.name === "add"));
  assert.match(await add(forTool, "add"), /5/);

  // The second sign-in finds the provider's session in the browser: straight back.
  const forHub = await connect(`${hub.gateway.publicUrl}/mcp`);
  const tools = (await forHub.listTools()).tools.map((tool) => tool.name);
  const privateAdd = tools.find((name) => name.includes("private") && name.includes("add"));
  assert.ok(privateAdd, `the connector lists grace's tools: ${tools.join(",")}`);
  assert.match(await add(forHub, privateAdd), /5/);
});
