import assert from "node:assert/strict";
import { test } from "node:test";
import type { Principal, TokenVerifier } from "../../../lib/gateway/contracts/interfaces.ts";
import { register, startAuthorizationServer } from "./harness.ts";

const LOOPBACK = "http://127.0.0.1:33418/callback";

test("a public loopback registration: 201 echoing the metadata, no secret, no-store", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const res = await register(base, { client_name: "VS Code", redirect_uris: [LOOPBACK], token_endpoint_auth_method: "none", scope: "anything", foo: 1 });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(typeof body.client_id, "string");
  assert.equal(typeof body.client_id_issued_at, "number");
  assert.equal(body.client_name, "VS Code");
  assert.deepEqual(body.redirect_uris, [LOOPBACK]);
  assert.equal(body.token_endpoint_auth_method, "none");
  assert.equal(body.client_secret, undefined);
  assert.equal(body.foo, undefined);
});

test("secret methods get a secret once; unsupported methods are downgraded to none", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const post = (await (
    await register(base, { redirect_uris: ["https://claude.ai/api/mcp/auth_callback"], token_endpoint_auth_method: "client_secret_post" })
  ).json()) as Record<string, unknown>;
  assert.equal(post.token_endpoint_auth_method, "client_secret_post");
  assert.equal(typeof post.client_secret, "string");
  assert.equal(post.client_secret_expires_at, 0);
  const jwt = (await (await register(base, { redirect_uris: [LOOPBACK], token_endpoint_auth_method: "private_key_jwt" })).json()) as Record<string, unknown>;
  assert.equal(jwt.token_endpoint_auth_method, "none");
  assert.equal(jwt.client_secret, undefined);
});

test("malformed registrations are 400 with an RFC 7591 error", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const cases: Array<[unknown, string]> = [
    [{}, "invalid_redirect_uri"],
    [{ redirect_uris: [] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["http://example.com/cb"] }, "invalid_redirect_uri"],
    [{ redirect_uris: ["https://a.example/cb#frag"] }, "invalid_redirect_uri"],
    [[1, 2], "invalid_client_metadata"],
  ];
  for (const [body, error] of cases) {
    const res = await register(base, body as Record<string, unknown>);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(((await res.json()) as { error: string }).error, error);
  }
  const broken = await fetch(`${base}/authorize/register`, { method: "POST", body: "{not json" });
  assert.equal(broken.status, 400);
  await broken.arrayBuffer();
});

test("other redirects need the bearer token of a member of the registration groups", async (t) => {
  const verifier: TokenVerifier = {
    async verify(token: string): Promise<Principal | null> {
      if (token === "staff-token") return { user: "ada", groups: ["staff"], kind: "api-token" };
      if (token === "guest-token") return { user: "bob", groups: ["guest"], kind: "api-token" };
      return null;
    },
  };
  const { base } = await startAuthorizationServer(t, { registration: { groups: ["staff"], verifier } });
  const body = { client_name: "Portal", redirect_uris: ["https://portal.example/cb"] };
  const none = await register(base, body);
  assert.equal(none.status, 401);
  assert.match(none.headers.get("www-authenticate")!, /^Bearer/);
  await none.arrayBuffer();
  const bad = await register(base, body, { Authorization: "Bearer nope" });
  assert.equal(bad.status, 401);
  await bad.arrayBuffer();
  const guest = await register(base, body, { Authorization: "Bearer guest-token" });
  assert.equal(guest.status, 403);
  await guest.arrayBuffer();
  const staff = await register(base, body, { Authorization: "Bearer staff-token" });
  assert.equal(staff.status, 201);
  await staff.arrayBuffer();
});

test("a registration flood from one address is cut off with 429, after room for a double registration", async (t) => {
  const { base, clock } = await startAuthorizationServer(t, { registration: { maxPerWindow: 3, windowMs: 60_000 } });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) {
    const res = await register(base, { client_name: `c${i}`, redirect_uris: [LOOPBACK] });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(Number(res.headers.get("retry-after")) > 0);
    await res.arrayBuffer();
  }
  assert.deepEqual(statuses, [201, 201, 201, 429, 429, 429]);
  clock.now += 60_000;
  const later = await register(base, { redirect_uris: [LOOPBACK] });
  assert.equal(later.status, 201);
  await later.arrayBuffer();
});

test("an identical public registration returns the existing client, loopback ports aside", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const first = (await (await register(base, { client_name: "Claude Code", redirect_uris: ["http://localhost:1111/callback"] })).json()) as {
    client_id: string;
  };
  const again = (await (await register(base, { client_name: "Claude Code", redirect_uris: ["http://localhost:2222/callback"] })).json()) as {
    client_id: string;
  };
  assert.equal(again.client_id, first.client_id);
  const other = (await (await register(base, { client_name: "Other", redirect_uris: ["http://localhost:2222/callback"] })).json()) as { client_id: string };
  assert.notEqual(other.client_id, first.client_id);
});

test("a client never used for a grant expires after 24 hours", async (t) => {
  const { base, clock } = await startAuthorizationServer(t);
  const { client_id } = (await (await register(base, { redirect_uris: [LOOPBACK] })).json()) as { client_id: string };
  const authorize = `${base}/developer/oauth/authorize?response_type=code&client_id=${client_id}&redirect_uri=${encodeURIComponent(LOOPBACK)}`;
  const fresh = await fetch(authorize, { redirect: "manual" });
  assert.notEqual(fresh.status, 400);
  await fresh.arrayBuffer();
  clock.now += 24 * 3600_000;
  const expired = await fetch(authorize, { redirect: "manual" });
  assert.equal(expired.status, 400);
  assert.match(await expired.text(), /not registered/);
  const replacement = (await (await register(base, { redirect_uris: [LOOPBACK] })).json()) as { client_id: string };
  assert.notEqual(replacement.client_id, client_id);
});

test("an allowlist prefix is anchored at a path boundary: chatgpt.com/connectorEVIL does not register without a token", async (t) => {
  const { base } = await startAuthorizationServer(t, { registration: { allowlist: ["https://chatgpt.com/connector", "https://portal.example/oauth/"] } });
  for (const uri of ["https://chatgpt.com/connectorEVIL/cb", "https://chatgpt.com/connector_evil", "https://portal.example/oauthx/cb"]) {
    const res = await register(base, { client_name: "Evil", redirect_uris: [uri] });
    assert.equal(res.status, 401, uri);
    await res.arrayBuffer();
  }
  for (const uri of ["https://chatgpt.com/connector", "https://chatgpt.com/connector/cb", "https://portal.example/oauth/cb"]) {
    const res = await register(base, { client_name: "Fine", redirect_uris: [uri] });
    assert.equal(res.status, 201, uri);
    await res.arrayBuffer();
  }
});
