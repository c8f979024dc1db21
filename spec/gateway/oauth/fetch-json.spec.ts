// What the hub reads from an identity provider is bounded and must be a JSON object; a key
// Node can't read in a JWKS is skipped, not fatal. Each failure is ProviderUnreachable.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import { test } from "node:test";
import { fetchJson, ProviderUnreachable } from "../../../lib/gateway/oauth/fetch-json.ts";
import { RemoteKeySet } from "../../../lib/gateway/oauth/jwks.ts";
import { listen } from "./harness.ts";

test("answers that are not a JSON object, too large or cut off are ProviderUnreachable", { timeout: 30_000 }, async (t) => {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const good = { ...publicKey.export({ format: "jwk" }), kid: "ok" };
  const server = createServer((req, res) => {
    if (req.url === "/html") return void res.writeHead(200, { "content-type": "text/html" }).end("<html>");
    if (req.url === "/array") return void res.writeHead(200).end("[1]");
    if (req.url === "/huge") {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 10; i++) res.write(chunk);
      return void res.end("{}");
    }
    if (req.url === "/cut") {
      res.writeHead(200, { "content-length": "1000" });
      res.write('{"a":');
      return void setImmediate(() => res.destroy());
    }
    if (req.url === "/jwks") return void res.writeHead(200).end(JSON.stringify({ keys: [{ kty: "nope", kid: "bad" }, "x", good] }));
    res.writeHead(200).end("{}");
  });
  const base = await listen(server, t);
  for (const path of ["/html", "/array", "/huge", "/cut"]) await assert.rejects(fetchJson(`${base}${path}`), ProviderUnreachable, path);
  assert.deepEqual(await fetchJson(`${base}/ok`), {});
  const keys = new RemoteKeySet(`${base}/jwks`);
  assert.ok(await keys.key({ alg: "ES256", kid: "ok" }));
  assert.equal(await keys.key({ alg: "RS256", kid: "bad" }), undefined, "the malformed key was skipped");
});
