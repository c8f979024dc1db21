// The router alone, on a real loopback server: steps in order, synchronous or not, params,
// a sub-application's own methods, and failures answered in one place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CORS } from "../../lib/http/cors.ts";
import { NEXT, type Params, Router, type Step } from "../../lib/http/router.ts";

interface Ctx {
  params: Params;
  seen: string[];
}

const text =
  (body: string): Step<Ctx> =>
  (_req, res, ctx) =>
    void res.writeHead(200, { "x-seen": ctx.seen.join(","), "x-params": JSON.stringify(ctx.params) }).end(body);
const mark =
  (name: string, later = false): Step<Ctx> =>
  (_req, _res, ctx) => {
    ctx.seen.push(name);
    return later ? Promise.resolve(NEXT) : NEXT;
  };

test("router: steps in order, params, sub-applications, and failures answered once", async (t) => {
  const failures: unknown[] = [];
  const router = new Router<Ctx>(
    [
      { path: "/a", before: [mark("route")], methods: { GET: [mark("own", true), text("a")] } },
      { path: "/a", methods: { POST: text("shadowed") } },
      { path: "/items/:id/*", methods: { GET: text("item") } },
      { path: "/sub", methods: { ANY: (req, res) => void res.writeHead(200, { "x-method": req.method }).end() }, cors: null },
      { path: "/stream", methods: { GET: text("stream") }, head: false, cors: null },
      {
        path: "/throws",
        methods: {
          GET: () => Promise.reject(new Error("no")),
          POST: () => {
            throw new Error("sync");
          },
        },
      },
    ],
    {
      before: [mark("router")],
      cors: CORS.toolServer,
      notFound: (_req, res) => void res.writeHead(404).end(),
      methodNotAllowed: (_req, res, _ctx, allow) => void res.writeHead(405, { allow }).end(),
      failed: (err, _req, res) => {
        failures.push(err);
        res.writeHead(500).end();
      },
    },
  );
  const server = createServer((req, res) => void router.serve(router.match(req.url!), req, res, { params: {}, seen: [] }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const a = await fetch(`${base}/a`);
  assert.deepEqual([a.status, a.headers.get("x-seen"), await a.text()], [200, "router,route,own", "a"]);
  assert.equal((await fetch(`${base}/a`, { method: "POST" })).status, 405, "the first entry for a path is the one served");
  const item = await fetch(`${base}/items/7/x/y`);
  assert.deepEqual(JSON.parse(item.headers.get("x-params")!), { id: "7", "*": "x/y" });
  assert.equal((await fetch(`${base}/items//x`)).status, 404, "a param is never empty");
  assert.equal((await fetch(`${base}/items/7`)).status, 404, "the rest needs its slash");
  for (const method of ["PUT", "OPTIONS", "HEAD"]) assert.equal((await fetch(`${base}/sub`, { method })).headers.get("x-method"), method);
  const head = await fetch(`${base}/stream`, { method: "HEAD" });
  assert.deepEqual([head.status, head.headers.get("allow")], [405, "GET, OPTIONS"]);
  const options = await fetch(`${base}/stream`, { method: "OPTIONS" });
  assert.deepEqual([options.status, options.headers.get("allow"), options.headers.get("access-control-allow-origin")], [204, "GET, OPTIONS", null]);
  assert.equal((await fetch(`${base}/throws`)).status, 500);
  assert.equal((await fetch(`${base}/throws`, { method: "POST" })).status, 500);
  assert.deepEqual(
    failures.map((e) => (e as Error).message),
    ["no", "sync"],
  );
});
