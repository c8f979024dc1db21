// server.handler(): the HTTP routes inside someone else's server. Mounted in Express it
// serves below the mount path, names it in what it advertises, and leaves other paths to
// the app; in a bare node:http server it serves at the root.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer, type RequestHandler } from "../../lib/index.ts";
import { openSse } from "../helpers/sse-client.ts";
import { post, rpc } from "../helpers/rpc.ts";

/** The little of Express this spec uses (Express ships no types; it comes with the official SDK). */
interface ExpressResponse extends ServerResponse {
  json(body: unknown): void;
  status(code: number): ExpressResponse;
}
interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse): void;
  get(path: string, fn: (req: IncomingMessage, res: ExpressResponse) => void): void;
  use(pathOrFn: string | ((req: IncomingMessage, res: ExpressResponse) => void), fn?: RequestHandler): void;
}
const EXPRESS: string = "express";
const express = ((await import(EXPRESS)) as { default: () => ExpressApp }).default;

function demo(): McpServer {
  const server = new McpServer("mounted");
  server.tool(
    function add({ a, b }: { a: number; b: number }) {
      return a + b;
    },
    { inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
  );
  return server;
}

async function listening(t: { after(fn: () => unknown): void }, server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const INIT = rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });

test("mounted in Express under /lab/mcp-tools: every route works there and advertises the mount path", async (t) => {
  const app = express();
  app.get("/health", (_req, res) => void res.json({ ok: true }));
  app.use("/lab/mcp-tools", demo().handler());
  app.use((_req, res) => void res.status(404).json({ from: "express" }));
  const base = await listening(t, createServer(app));
  const mount = `${base}/lab/mcp-tools`;

  const init = await post(`${mount}/mcp`, INIT, { accept: "application/json, text/event-stream" });
  assert.equal(init.status, 200);
  const session = init.headers.get("mcp-session-id")!;
  const call = await post(`${mount}/mcp`, rpc(2, "tools/call", { name: "add", arguments: { a: 2, b: 5 } }), { "mcp-session-id": session });
  assert.equal(call.json.result.content[0].text, "7");
  assert.deepEqual((await post(`${mount}/tools/add`, { a: 1, b: 1 })).json, { result: "2" });

  const legacy = await openSse(`${mount}/sse`);
  t.after(() => legacy.close());
  assert.match((await legacy.until("endpoint")).data, /^\/lab\/mcp-tools\/\?session_id=/);
  const standalone = await openSse(`${mount}/mcp`, { headers: { "mcp-session-id": session } });
  t.after(() => standalone.close());
  await standalone.opened();
  assert.ok(standalone.comments.includes(`endpoint /lab/mcp-tools/mcp?session_id=${session}`));

  const openapi = (await (await fetch(`${mount}/openapi.json`)).json()) as { servers: unknown };
  assert.deepEqual(openapi.servers, [{ url: "/lab/mcp-tools" }]);
  const info = (await (await fetch(`${mount}/`)).json()) as { endpoints: { mcp: string } };
  assert.equal(info.endpoints.mcp, "/lab/mcp-tools/mcp");

  // Paths the handler does not serve belong to the app.
  assert.deepEqual(await (await fetch(`${mount}/elsewhere`)).json(), { from: "express" });
  assert.deepEqual(await (await fetch(`${base}/health`)).json(), { ok: true });
});

test("as a bare node:http listener it serves at the root and answers 404 itself; its guard refuses foreign origins", async (t) => {
  const base = await listening(t, createServer(demo().handler()));
  assert.equal((await post(`${base}/mcp`, INIT)).status, 200);
  const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: unknown };
  assert.deepEqual(openapi.servers, [{ url: "/" }]);
  const missing = await fetch(`${base}/nothing`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  assert.equal((await post(`${base}/mcp`, INIT, { origin: "https://evil.example.com" })).status, 403);
});

test("mounted the way Connect mounts (url cut, originalUrl whole, no baseUrl), it finds its mount path too", async (t) => {
  const handler = demo().handler();
  const mount = "/connect/tools";
  // What connect's `app.use(mount, handler)` does to a request before calling the handler.
  const base = await listening(
    t,
    createServer((req, res) => {
      const original = req.url ?? "/";
      if (!original.startsWith(mount)) return void res.writeHead(404).end();
      Object.assign(req, { originalUrl: original, url: original.slice(mount.length) || "/" });
      handler(req, res, () => void res.writeHead(404).end());
    }),
  );
  const openapi = (await (await fetch(`${base}${mount}/openapi.json`)).json()) as { servers: unknown };
  assert.deepEqual(openapi.servers, [{ url: mount }]);
  const info = (await (await fetch(`${base}${mount}`)).json()) as { endpoints: { mcp: string } };
  assert.equal(info.endpoints.mcp, `${mount}/mcp`);
  const legacy = await openSse(`${base}${mount}/sse?x=1`);
  t.after(() => legacy.close());
  assert.match((await legacy.until("endpoint")).data, /^\/connect\/tools\/\?session_id=/);
});
