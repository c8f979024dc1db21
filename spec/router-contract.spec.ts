// The router contract (lib/http/router.ts), run the same against each of the three real
// servers on loopback: the tool server, the gateway, and the OAuth server as the gateway
// serves it. 404 for an unknown path, 405 with the route's Allow, HEAD as GET without a body,
// OPTIONS with and without a CORS preflight, and a foreign Host refused first.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { McpServer } from "../lib/index.ts";
import { OAuthServer } from "../lib/gateway/oauth/server.ts";
import { MemoryRecordStore } from "../lib/gateway/store/memory-record-store.ts";
import { startHarness } from "./gateway/helpers.ts";
import { TestAccounts } from "./gateway/oauth/harness.ts";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a fresh socket, with any Host header (fetch will not send one of ours). */
function send(base: string, path: string, method: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer")));
    req.on("error", reject);
    req.end();
  });
}

interface Server {
  base: string;
  /** A route that answers GET (and so HEAD), and the Allow its wrong method is told. */
  get: { path: string; wrong: string; allow: string };
  /** The CORS profile's methods, as its preflight names them. */
  preflightMethods: string;
}

const SERVERS: Record<string, (t: TestContext) => Promise<Server>> = {
  "tool server": async (t) => {
    const running = await new McpServer("contract").listen({ port: 0 });
    t.after(() => running.close());
    return {
      base: running.url.slice(0, -1),
      get: { path: "/openapi.json", wrong: "DELETE", allow: "GET, HEAD, OPTIONS" },
      preflightMethods: "GET, POST, DELETE, OPTIONS",
    };
  },
  gateway: async (t) => {
    const h = await startHarness(t, { tools: {} });
    return { base: h.base, get: { path: "/healthz", wrong: "POST", allow: "GET, HEAD, OPTIONS" }, preflightMethods: "GET, POST, DELETE, OPTIONS" };
  },
  "OAuth server": async (t) => {
    let publicUrl = "";
    const as = new OAuthServer({ publicUrl: () => publicUrl, store: new MemoryRecordStore(), accounts: new TestAccounts() });
    const h = await startHarness(t, { tools: {} }, { authorizationServer: as });
    publicUrl = h.base;
    return {
      base: h.base,
      get: { path: "/authorize/.well-known/oauth-authorization-server", wrong: "PUT", allow: "GET, HEAD, OPTIONS" },
      preflightMethods: "GET, POST, OPTIONS",
    };
  },
};

for (const [name, start] of Object.entries(SERVERS)) {
  test(`router contract: ${name}`, async (t) => {
    const s = await start(t);

    await t.test("an unknown path is 404, with the CORS headers a browser needs to read it", async () => {
      const res = await send(s.base, "/no/such/route", "GET");
      assert.equal(res.status, 404);
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.match(res.headers["content-type"] as string, /^application\/json/);
    });

    await t.test("a wrong method is 405 naming the route's methods in Allow", async () => {
      const res = await send(s.base, s.get.path, s.get.wrong);
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, s.get.allow);
      assert.equal((await send(s.base, s.get.path, "PROPFIND")).headers.allow, s.get.allow);
    });

    await t.test("HEAD on a GET route answers as GET, without the body", async () => {
      const got = await send(s.base, s.get.path, "GET");
      const head = await send(s.base, s.get.path, "HEAD");
      assert.equal(got.status, 200);
      assert.equal(head.status, 200);
      assert.equal(head.body, "");
      assert.equal(head.headers["content-type"], got.headers["content-type"]);
      assert.equal(head.headers["content-length"], got.headers["content-length"]);
    });

    await t.test("OPTIONS: a CORS preflight gets the profile's headers, a plain one 204 with Allow", async () => {
      const preflight = await send(s.base, s.get.path, "OPTIONS", { origin: "http://localhost:6274", "access-control-request-method": "GET" });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers["access-control-allow-origin"], "*");
      assert.equal(preflight.headers["access-control-allow-methods"], s.preflightMethods);
      assert.equal(preflight.headers["access-control-allow-credentials"], undefined);
      assert.equal(preflight.headers.allow, s.get.allow);
      const plain = await send(s.base, s.get.path, "OPTIONS");
      assert.equal(plain.status, 204);
      assert.equal(plain.headers.allow, s.get.allow);
      assert.equal(plain.body, "");
      assert.equal((await send(s.base, "/no/such/route", "OPTIONS")).status, 404, "no preflight for a path that is not served");
    });

    await t.test("a foreign Host is refused before routing, on known and unknown paths alike", async () => {
      for (const path of [s.get.path, "/no/such/route"]) {
        const res = await send(s.base, path, "GET", { host: "evil.example" });
        assert.equal(res.status, 403, path);
      }
    });
  });
}
