// `{publicUrl}/admin/api/tools…` (issue 37, point 4): the registry's operations over HTTP,
// for an API token of an operator only, with CORS closed and the CLI's checks and messages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ConfigError, parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { fake, startHarness } from "../helpers.ts";

const CONFIG = { tools: { fixed: { revisions: { default: fake() } } }, admin: { groups: ["staff"] }, limits: { lookupCacheSeconds: 0.2 } };

test("the admin API: operators only, no other origin, the CLI's checks", { timeout: 30_000 }, async (t) => {
  const h = await startHarness(t, CONFIG);
  const api = `${h.base}/admin/api/tools`;
  const as = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${token}`, ...extra });
  const call = async (method: string, path: string, token: string | null, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...(token ? as(token) : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...extra },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    return { status: res.status, cors: res.headers.get("access-control-allow-origin"), json: (await res.json()) as Record<string, unknown> };
  };
  const calc = { revisions: { default: { url: "http://127.0.0.1:9/" } } };

  await t.test("refused without a token, to a non-operator, and to another origin (preflight too), with no CORS header", async () => {
    assert.equal((await call("GET", "", null)).status, 401);
    assert.equal((await call("GET", "", "not-a-token")).status, 401);
    const bob = await call("PUT", "/calc", h.tokens.bob, calc);
    assert.equal(bob.status, 403);
    assert.equal(bob.json.error, "forbidden");
    const foreign = await call("PUT", "/calc", h.tokens.carol, calc, { origin: "https://evil.example" });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.cors, null);
    const preflight = await fetch(`${api}/calc`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "PUT" } });
    assert.equal(preflight.status, 403);
    assert.equal(preflight.headers.get("access-control-allow-origin"), null);
    assert.deepEqual((await call("GET", "", h.tokens.carol)).json, { tools: [] }, "nothing was registered by the refused requests");
  });

  await t.test("put, show, list, a revision, remove; the same put twice is no change", async () => {
    const own = await call("PUT", "/calc", h.tokens.carol, calc, { origin: h.base });
    assert.deepEqual([own.status, own.json, own.cors], [200, { outcome: "added" }, null]);
    assert.deepEqual((await call("PUT", "/calc", h.tokens.carol, calc)).json, { outcome: "unchanged" });
    const shown = await call("GET", "/calc", h.tokens.carol);
    assert.deepEqual([shown.json.name, shown.json.by, shown.json.tool], ["calc", "carol", calc]);
    assert.deepEqual((await call("PUT", "/calc/revisions/v2?default=1", h.tokens.carol, { url: "http://127.0.0.1:10/" })).json, { outcome: "updated" });
    assert.deepEqual((await call("PUT", "/new/revisions/v1", h.tokens.carol, { url: "http://127.0.0.1:10/" })).json, { outcome: "added" });
    const listed = (await call("GET", "", h.tokens.carol)).json.tools as Array<{ name: string; tool: { defaultRevision?: string } }>;
    assert.deepEqual(
      listed.map((x) => [x.name, x.tool.defaultRevision]),
      [
        ["calc", "v2"],
        ["new", "v1"],
      ],
    );
    assert.deepEqual((await call("DELETE", "/calc/revisions/default?now=1", h.tokens.carol)).json, { outcome: "updated" });
    assert.deepEqual((await call("DELETE", "/new", h.tokens.carol)).json, { outcome: "removed" });
    assert.deepEqual((await call("POST", "", h.tokens.carol, [{ name: "many", ...calc }])).json, { added: 1, updated: 0, removed: 0, unchanged: 0 });
  });

  await t.test("the one-line errors of gateway.json and the CLI, with their statuses", async () => {
    const bad = { revisions: { default: { url: "ftp://x" } } };
    const refused = await call("PUT", "/calc", h.tokens.carol, bad);
    let expected = "";
    try {
      parseGatewayConfig({ tools: { calc: bad } }, "/");
    } catch (err) {
      expected = (err as ConfigError).message;
    }
    assert.deepEqual([refused.status, refused.json], [400, { error: "bad_tool", message: expected }]);
    assert.equal((await call("PUT", "/calc", h.tokens.carol, [1])).status, 400);
    assert.equal((await call("PUT", "/calc/revisions/x", h.tokens.carol, "[]")).status, 400);
    assert.equal((await call("PUT", "/calc", h.tokens.carol, "{not json")).json.error, "bad_tool");
    assert.deepEqual((await call("POST", "", h.tokens.carol, { name: "x" })).json.error, "bad_tool");
    const fixed = await call("PUT", "/fixed", h.tokens.carol, calc);
    assert.deepEqual([fixed.status, fixed.json.error], [409, "conflict"]);
    assert.match(fixed.json.message as string, /^tool fixed is defined in gateway\.json/);
    assert.deepEqual((await call("DELETE", "/gone", h.tokens.carol)).json.error, "unknown_tool");
    assert.deepEqual((await call("DELETE", "/calc/revisions/nope", h.tokens.carol)).json.error, "unknown_revision");
    assert.equal((await call("DELETE", "/calc/revisions/v2", h.tokens.carol)).status, 409, "the default revision stays");
    assert.equal((await call("PATCH", "", h.tokens.carol)).status, 405);
    assert.equal((await call("POST", "/calc", h.tokens.carol)).status, 405);
    assert.equal((await call("GET", "/calc/revisions/v2", h.tokens.carol)).status, 405);
    assert.equal((await call("GET", "/calc/other/v2", h.tokens.carol)).status, 404);
    assert.equal((await fetch(`${h.base}/admin/api/users`, { headers: as(h.tokens.carol) })).status, 404);
  });
});
