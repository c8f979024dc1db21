// Serving the console over real HTTP: which `GET /` gets the page, its headers and weight,
// the prefix redirect, and `console: false`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";
import { CONSOLE_POLICY, consoleWeight, wantsConsolePage } from "../../lib/console/routes.ts";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

function demoServer(options: ConstructorParameters<typeof McpServer>[1] = {}): McpServer {
  return new McpServer("console-routes", options).tool(({ x }: { x: number }) => x, {
    name: "echo",
    inputSchema: { type: "object", properties: { x: { type: "number" } } },
  });
}

test("only a request naming text/html is a browser asking for the page", () => {
  assert.equal(wantsConsolePage(BROWSER_ACCEPT), true);
  assert.equal(wantsConsolePage("TEXT/HTML"), true);
  for (const accept of [undefined, "", "*/*", "application/json", "application/json, text/event-stream", "text/html;q=0", "text/*"]) {
    assert.equal(wantsConsolePage(accept), false, String(accept));
  }
});

test("GET / answers JSON clients unchanged and browsers with the console", async (t) => {
  const running = await demoServer().listen({ port: 0 });
  t.after(() => running.close());
  const info = {
    name: "console-routes",
    version: "1.0.0",
    status: "running",
    tools: 1,
    resources: 0,
    prompts: 0,
    endpoints: { sse: "/sse", mcp: "/mcp", openapi: "/openapi.json" },
  };
  for (const accept of [undefined, "application/json", "*/*"]) {
    const res = await fetch(running.url, { headers: accept ? { accept } : {} });
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), info);
  }

  const page = await fetch(running.url, { headers: { accept: BROWSER_ACCEPT } });
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(page.headers.get("content-security-policy"), CONSOLE_POLICY);
  assert.match(CONSOLE_POLICY, /script-src 'self';/);
  assert.doesNotMatch(CONSOLE_POLICY, /unsafe/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const html = await page.text();
  assert.doesNotMatch(html, /<script>|<script(?![^>]*\bsrc=)|\son[a-z]+=|style=|https?:\/\//i, "no inline code, styles or outside URLs");
  assert.match(html, /<script src="console\/console.js" defer><\/script>/);

  let total = Buffer.byteLength(html);
  for (const asset of ["console/console.js", "console/console.css", "console/frame.html"]) {
    const res = await fetch(running.url + asset);
    assert.equal(res.status, 200, asset);
    total += (await res.arrayBuffer()).byteLength;
  }
  assert.equal(total, consoleWeight);
  assert.ok(total < 100 * 1024, `page weight ${total} bytes`);

  const frame = await fetch(`${running.url}console/frame.html`);
  assert.match(frame.headers.get("content-security-policy")!, /^sandbox allow-scripts; default-src 'none';/);
  const etag = page.headers.get("etag")!;
  const again = await fetch(running.url, { headers: { accept: "text/html", "if-none-match": etag } });
  assert.equal(again.status, 304);
  const head = await fetch(running.url, { method: "HEAD", headers: { accept: "text/html" } });
  assert.equal(head.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal((await fetch(`${running.url}console/nothing.js`)).status, 404);
});

test("under a prefix the page is served at the prefix with a slash, and redirected there without one", async (t) => {
  const running = await demoServer().listen({ port: 0, pathPrefix: "/weber/123/abc/5" });
  t.after(() => running.close());
  const bare = await fetch(running.url.replace(/\/$/, ""), { headers: { accept: "text/html" }, redirect: "manual" });
  assert.equal(bare.status, 308);
  assert.equal(bare.headers.get("location"), "./5/");
  const page = await fetch(running.url, { headers: { accept: "text/html" } });
  assert.match(await page.text(), /console\/console.css/);
  const info = await fetch(running.url.replace(/\/$/, ""));
  assert.deepEqual(((await info.json()) as { endpoints: unknown }).endpoints, {
    sse: "/weber/123/abc/5/sse",
    mcp: "/weber/123/abc/5/mcp",
    openapi: "/weber/123/abc/5/openapi.json",
  });
  assert.equal((await fetch(`${running.url}console/console.js`)).status, 200);
});

test("console: false keeps GET / to server info and serves no assets", async (t) => {
  const running = await demoServer({ console: false }).listen({ port: 0 });
  t.after(() => running.close());
  const res = await fetch(running.url, { headers: { accept: BROWSER_ACCEPT } });
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(((await res.json()) as { status: string }).status, "running");
  assert.equal((await fetch(`${running.url}console/console.js`)).status, 404);
});
