import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test, type TestContext } from "node:test";
import { cacheLifetime, parseDocument } from "../../../lib/gateway/oauth/client-metadata-document.ts";
import { authorizeUrl, listen, pkcePair, signIn, startAuthorizationServer, token } from "./harness.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";

/** A client's own web server publishing its metadata document; counts the fetches. */
async function documentHost(
  t: TestContext,
  body: (url: string) => unknown,
  headers: Record<string, string> = {},
  status = 200,
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  let url = "";
  const server = createServer((_req, res) => {
    hits += 1;
    const text = typeof body(url) === "string" ? (body(url) as string) : JSON.stringify(body(url));
    res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(text);
  });
  url = `${await listen(server, t)}/oauth/client.json`;
  return { url, hits: () => hits };
}

test("an https client_id on a private or loopback address is refused without being fetched", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const host = await documentHost(t, (url) => ({ client_id: url, redirect_uris: [REDIRECT] }));
  for (const clientId of [
    host.url,
    host.url.replace("http:", "https:"),
    "https://localhost/oauth/client.json",
    "https://169.254.169.254/latest/meta-data/x",
    "https://10.0.0.1/c.json",
  ]) {
    const res = await fetch(authorizeUrl(base, { response_type: "code", client_id: clientId, redirect_uri: REDIRECT }), { redirect: "manual" });
    assert.equal(res.status, 400, clientId);
    assert.equal(res.headers.get("location"), null);
    await res.arrayBuffer();
  }
  assert.equal(host.hits(), 0);
});

test("with private addresses allowed (specs only), a metadata-document client signs in and gets tokens", async (t) => {
  const { base } = await startAuthorizationServer(t, { clientMetadata: { allowPrivateAddresses: true } });
  const host = await documentHost(t, (url) => ({ client_id: url, client_name: "Doc Client", redirect_uris: [REDIRECT] }), { "Cache-Control": "max-age=60" });
  const { verifier, challenge } = pkcePair();
  const back = await signIn(base, { clientId: host.url, challenge });
  const res = await token(base, {
    grant_type: "authorization_code",
    client_id: host.url,
    code: back.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(host.hits(), 1, "cached per Cache-Control");
  const wrongRedirect = await fetch(authorizeUrl(base, { response_type: "code", client_id: host.url, redirect_uri: "http://127.0.0.1:5555/elsewhere" }), {
    redirect: "manual",
  });
  assert.equal(wrongRedirect.status, 400);
  await wrongRedirect.arrayBuffer();
});

test("a document whose client_id differs from its URL, or that is too large, is refused", async (t) => {
  const { base } = await startAuthorizationServer(t, { clientMetadata: { allowPrivateAddresses: true } });
  const liar = await documentHost(t, () => ({ client_id: "https://someone.else/c.json", redirect_uris: [REDIRECT] }));
  const huge = await documentHost(t, (url) => ({ client_id: url, redirect_uris: [REDIRECT], padding: "x".repeat(6000) }));
  for (const host of [liar, huge]) {
    const res = await fetch(authorizeUrl(base, { response_type: "code", client_id: host.url, redirect_uri: REDIRECT }), { redirect: "manual" });
    assert.equal(res.status, 400);
    await res.arrayBuffer();
  }
});

test("document parsing and cache lifetimes", () => {
  const id = "https://app.example/client.json";
  assert.deepEqual(parseDocument(JSON.stringify({ client_id: id, client_name: "App", redirect_uris: [REDIRECT] }), id), {
    client_id: id,
    client_name: "App",
    redirect_uris: [REDIRECT],
  });
  assert.equal(parseDocument("nope", id), undefined);
  assert.equal(parseDocument("[]", id), undefined);
  assert.equal(parseDocument(JSON.stringify({ client_id: id, redirect_uris: [] }), id), undefined);
  assert.equal(parseDocument(JSON.stringify({ client_id: id, redirect_uris: ["http://evil.example/cb"] }), id), undefined);
  assert.equal(parseDocument(JSON.stringify({ client_id: id, redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" }), id), undefined);
  assert.equal(cacheLifetime(undefined), 300_000);
  assert.equal(cacheLifetime("no-store"), 60_000, "kept a minute all the same");
  assert.equal(cacheLifetime("max-age=0"), 60_000);
  assert.equal(cacheLifetime("public, max-age=120"), 120_000);
  assert.equal(cacheLifetime("max-age=99999999"), 86_400_000);
  assert.equal(cacheLifetime("public"), 300_000);
});

const authorizeAt = (base: string, clientId: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(
    authorizeUrl(base, {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    }),
    { redirect: "manual", headers },
  );

test("failed, invalid and no-store documents are remembered for a minute: a flood of sign-ins fetches each once", async (t) => {
  const { base, clock } = await startAuthorizationServer(t, { clientMetadata: { allowPrivateAddresses: true } });
  const missing = await documentHost(t, () => "not here", {}, 404);
  const liar = await documentHost(t, () => ({ client_id: "https://someone.else/c.json", redirect_uris: [REDIRECT] }));
  const noStore = await documentHost(t, (url) => ({ client_id: url, redirect_uris: [REDIRECT] }), { "Cache-Control": "no-store" });
  for (const [host, status] of [
    [missing, 400],
    [liar, 400],
    [noStore, 200],
  ] as const) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => authorizeAt(base, host.url)));
    for (let i = 0; i < 5; i++) answers.push(await authorizeAt(base, host.url));
    for (const answer of answers) {
      assert.equal(answer.status, status);
      await answer.arrayBuffer();
    }
    assert.equal(host.hits(), 1, host.url);
  }
  clock.now += 61_000;
  await (await authorizeAt(base, missing.url)).arrayBuffer();
  assert.equal(missing.hits(), 2, "fetched again once the minute is over");
});

test("authorize is rate-limited per address before any document is fetched", async (t) => {
  const { base } = await startAuthorizationServer(t, {
    clientMetadata: { allowPrivateAddresses: true },
    clientIp: (req) => String(req.headers["x-test-address"]),
  });
  const host = await documentHost(t, () => "not here", {}, 404);
  const statuses: number[] = [];
  for (let i = 0; i < 70; i++) {
    const res = await authorizeAt(base, host.url.replace("client.json", `c${i}.json`), { "X-Test-Address": "198.51.100.1" });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(Number(res.headers.get("retry-after")) >= 1);
    await res.arrayBuffer();
  }
  assert.equal(statuses.filter((s) => s === 429).length, 10);
  assert.equal(host.hits(), 60, "no fetch once the address is over its limit");
  const other = await authorizeAt(base, host.url, { "X-Test-Address": "198.51.100.2" });
  assert.equal(other.status, 400, "another address is not held back");
  await other.arrayBuffer();
});
