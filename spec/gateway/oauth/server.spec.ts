import assert from "node:assert/strict";
import { test } from "node:test";
import { createServer } from "node:http";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { OAuthServer } from "../../../lib/gateway/oauth/server.ts";
import { TestAccounts, listen, startAuthorizationServer } from "./harness.ts";

test("metadata at the issuer's path and at the RFC 8414 location, identical, with CORS", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const a = await fetch(`${base}/authorize/.well-known/oauth-authorization-server`);
  const b = await fetch(`${base}/.well-known/oauth-authorization-server/authorize`);
  const legacy = await fetch(`${base}/.well-known/oauth-authorization-server`);
  assert.equal(a.status, 200);
  assert.equal(a.headers.get("access-control-allow-origin"), "*");
  const doc = (await a.json()) as Record<string, unknown>;
  assert.deepEqual(await b.json(), doc);
  assert.deepEqual(await legacy.json(), doc);
  assert.deepEqual(doc, {
    issuer: `${base}/authorize`,
    authorization_endpoint: `${base}/developer/oauth/authorize`,
    token_endpoint: `${base}/developer/oauth/token`,
    registration_endpoint: `${base}/authorize/register`,
    revocation_endpoint: `${base}/developer/oauth/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  });
});

test("OpenID discovery is a 404, never a partial document", async (t) => {
  const { base } = await startAuthorizationServer(t);
  for (const path of ["/.well-known/openid-configuration", "/.well-known/openid-configuration/authorize", "/authorize/.well-known/openid-configuration"]) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 404, path);
    assert.equal(((await res.json()) as { issuer?: string }).issuer, undefined);
  }
});

test("preflight on every endpoint; other paths are left to the gateway; wrong methods are 405", async (t) => {
  const { base } = await startAuthorizationServer(t);
  for (const path of ["/authorize/register", "/developer/oauth/token", "/developer/oauth/revoke", "/authorize/.well-known/oauth-authorization-server"]) {
    const res = await fetch(`${base}${path}`, { method: "OPTIONS", headers: { Origin: "http://localhost:6274", "Access-Control-Request-Method": "POST" } });
    assert.equal(res.status, 204, path);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-headers")!, /Authorization/);
    assert.equal(res.headers.get("access-control-allow-credentials"), null);
  }
  const other = await fetch(`${base}/api/mcp/mcpdemo/mcp`);
  assert.equal(await other.text(), "not ours");
  const wrong = await fetch(`${base}/developer/oauth/token`);
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
  await wrong.arrayBuffer();
});

test("an oversized body is a 413 and the server keeps serving", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const res = await fetch(`${base}/developer/oauth/token`, {
    method: "POST",
    body: "x".repeat(70_000),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("connection"), "close", "a body cut short leaves the connection unusable, as on every edge");
  assert.deepEqual(await res.json(), { error: "invalid_request", error_description: "request body too large" });
  assert.equal((await fetch(`${base}/authorize/.well-known/oauth-authorization-server`)).status, 200);
});

test("a publicUrl with a path prefix serves under that prefix only", async (t) => {
  const as = new OAuthServer({ publicUrl: "https://hub.example/hub/", store: new MemoryRecordStore(), accounts: new TestAccounts() });
  const base = await listen(
    createServer((req, res) => void as.handle(req, res).then((ok) => ok || res.writeHead(404).end())),
    t,
  );
  const doc = (await (await fetch(`${base}/hub/authorize/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
  assert.equal(doc.issuer, "https://hub.example/hub/authorize");
  assert.equal((await fetch(`${base}/authorize/.well-known/oauth-authorization-server`)).status, 404);
  // The gateway asks before every tool request: a path not its own is answered at once, with nothing written.
  const toolRequest = { url: "/hub/api/mcp/demo/mcp", method: "POST", headers: {} } as unknown as import("node:http").IncomingMessage;
  assert.equal(as.handleNow(toolRequest, {} as import("node:http").ServerResponse), false);
  // handle itself keeps its promise, for servers that embed it with .then.
  assert.equal(await as.handle(toolRequest, {} as import("node:http").ServerResponse), false);
  assert.throws(() => new OAuthServer({ publicUrl: "ftp://x", store: new MemoryRecordStore(), accounts: new TestAccounts() }), /publicUrl/);
});

test("a publicUrl given as a function is read when used: its path may come and change later", async (t) => {
  let url = "";
  // Not known yet: constructing does not ask.
  const as = new OAuthServer({ publicUrl: () => url, store: new MemoryRecordStore(), accounts: new TestAccounts() });
  const base = await listen(
    createServer((req, res) => void as.handle(req, res).then((ok) => ok || res.writeHead(404).end())),
    t,
  );
  url = "https://hub.example";
  assert.equal((await fetch(`${base}/authorize/.well-known/oauth-authorization-server`)).status, 200);
  url = "https://hub.example/hub";
  assert.equal((await fetch(`${base}/authorize/.well-known/oauth-authorization-server`)).status, 404);
  const doc = (await (await fetch(`${base}/hub/authorize/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
  assert.equal(doc.issuer, "https://hub.example/hub/authorize");
});
