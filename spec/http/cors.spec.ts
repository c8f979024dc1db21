// CORS, one function and three profiles: every answer readable by browser hosts with `*` and
// never credentials, each side's preflight naming what the contract asks of it (interface
// "Authentication" 8: Authorization, Content-Type, Mcp-Session-Id, MCP-Protocol-Version,
// Last-Event-ID; WWW-Authenticate and Mcp-Session-Id exposed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { answerPreflight, CORS, setCors, type CorsProfile } from "../../lib/http/cors.ts";

async function corsServer(t: { after(fn: () => unknown): void }, cors: CorsProfile): Promise<string> {
  const server = createServer((req, res) => {
    if (req.method === "OPTIONS") return answerPreflight(res, cors);
    setCors(res, cors);
    res.writeHead(401, { "www-authenticate": "Bearer" }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const REQUIRED_REQUEST_HEADERS = ["Authorization", "Content-Type", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"];

for (const [name, profile] of Object.entries(CORS)) {
  test(`the ${name} profile: preflight and actual answers`, async (t) => {
    const url = await corsServer(t, profile);
    const preflight = await fetch(url, { method: "OPTIONS", headers: { origin: "https://inspector.example", "access-control-request-method": "POST" } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.equal(preflight.headers.get("access-control-allow-credentials"), null, "never credentials with *");
    const allowed = preflight.headers.get("access-control-allow-headers")!.split(", ");
    for (const header of REQUIRED_REQUEST_HEADERS) assert.ok(allowed.includes(header), `${name} allows ${header}`);
    assert.match(preflight.headers.get("access-control-allow-methods")!, /\bPOST\b/);
    assert.ok(Number(preflight.headers.get("access-control-max-age")) > 0);

    const actual = await fetch(url, { headers: { origin: "https://inspector.example" } });
    assert.equal(actual.status, 401);
    assert.equal(actual.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(actual.headers.get("access-control-expose-headers")!.split(", ").sort(), ["Mcp-Session-Id", "WWW-Authenticate"]);
  });
}

test("the profiles differ in data only where their endpoints do: OAuth takes no DELETE", () => {
  assert.equal(CORS.toolServer.preflight["access-control-allow-methods"], "GET, POST, DELETE, OPTIONS");
  assert.equal(CORS.gateway.preflight["access-control-allow-methods"], "GET, POST, DELETE, OPTIONS");
  assert.equal(CORS.oauth.preflight["access-control-allow-methods"], "GET, POST, OPTIONS");
  assert.ok(Object.isFrozen(CORS.gateway.actual) && Object.isFrozen(CORS.gateway.preflight), "shared header objects cannot be changed by one answer");
});
