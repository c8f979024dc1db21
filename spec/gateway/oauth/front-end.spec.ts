// The hub's front end vouches for the person: a REAL nginx in front (basic auth standing in for
// the hub's own sign-in) passes the name and groups in named headers with a shared secret, from
// an address the hub lists. The same headers sent directly, or with the wrong secret, sign
// nobody in; and every request loses them before anything else reads it.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { OAuthServer } from "../../../lib/gateway/oauth/server.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { documentedNginx, documentedOAuth } from "./identity-docs.ts";
import { authorizeUrl, hiddenField, listen, pkcePair, registerPublic, token, TestAccounts } from "./harness.ts";
import { startHub } from "./hub.ts";
import { nginxSkip, startNginx } from "./nginx.ts";
import { ping, REDIRECT, secretFile } from "./oidc-flow.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";

const SECRET = "front-end-shared-secret-0123456789";
// As docs/gateway.md shows it, with nginx's address (it connects from 127.0.0.2) the only one listed.
const FRONT_END = { ...documentedOAuth<Record<string, unknown>>("frontEnd"), from: ["127.0.0.2"] };

test("behind a real nginx: the front end's person is signed in; direct or wrong-secret headers are not", { skip: nginxSkip(), timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "hub-front-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { gateway, store } = await startHub(t, { frontEnd: { ...FRONT_END, secretFile: await secretFile(dir, "front-secret", SECRET) } });
  const hubPort = new URL(gateway.publicUrl).port;
  const { ports } = await startNginx(
    t,
    ([good, wrong]) => {
      // The page's location block, as written, in a server block that signs people in with basic auth.
      const server = (port: number, secretFile: string): string => `server {
  listen 127.0.0.1:${port};
  auth_basic "hub";
  auth_basic_user_file ${dir}/htpasswd;
  proxy_bind 127.0.0.2;
${documentedNginx().replace("127.0.0.1:8080", `127.0.0.1:${hubPort}`).replace("/etc/nginx/hubmcp-front-secret.conf", secretFile)}
}`;
      writeFileSync(join(dir, "secret.conf"), `proxy_set_header X-Hub-Front-Secret "${SECRET}";\n`);
      writeFileSync(join(dir, "wrong.conf"), 'proxy_set_header X-Hub-Front-Secret "not-the-secret-0123456789abcdef";\n');
      return `map $remote_user $hub_groups { default ""; grace "staff,lab-2,not a group!"; }\n${server(good!, join(dir, "secret.conf"))}\n${server(wrong!, join(dir, "wrong.conf"))}`;
    },
    2,
  );
  await writeFile(join(dir, "htpasswd"), "grace:{PLAIN}grace-pw\n");
  const basic = { authorization: `Basic ${Buffer.from("grace:grace-pw").toString("base64")}` };
  const clientId = await registerPublic(gateway.publicUrl, REDIRECT);
  const { verifier, challenge } = pkcePair();
  const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s" };
  const via = (port: number): string => authorizeUrl(`http://127.0.0.1:${port}`, params);

  // Through the front end: no login form, straight to consent as grace, with the front end's groups.
  const page = await fetch(via(ports[0]!), { headers: basic });
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(html, /act as <strong>grace<\/strong>/);
  assert.doesNotMatch(html, /type="password"/);
  assert.deepEqual(await new StoreAccountDirectory(store).groupsOf("grace"), ["lab-2", "staff"]);
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  const decided = await fetch(`http://127.0.0.1:${ports[0]}/developer/oauth/consent`, {
    method: "POST",
    redirect: "manual",
    headers: { ...basic, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf"), decision: "approve" }),
  });
  assert.equal(decided.status, 303);
  const code = new URL(decided.headers.get("location")!).searchParams.get("code")!;
  const tokens = await token(gateway.publicUrl, {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  const { access_token } = (await tokens.json()) as { access_token: string };
  assert.equal(await ping(`${gateway.publicUrl}/api/mcp/private/mcp`, access_token), 200, "the front end's group opens the tool");

  // The same headers, right secret and all, straight to the hub from an address not listed: the login form.
  const forged = { "x-hub-user": "ada", "x-hub-groups": "staff", "x-hub-front-secret": SECRET };
  const direct = await fetch(authorizeUrl(gateway.publicUrl, params), { headers: forged });
  assert.match(await direct.text(), /type="password"/);
  // From the listed address with the wrong secret: the login form too.
  const wrong = await fetch(via(ports[1]!), { headers: basic });
  assert.match(await wrong.text(), /type="password"/);
  assert.equal(await new StoreAccountDirectory(store).groupsOf("mallory"), null);
});

test("the front end's headers leave every request before it is handled, believed or not", { timeout: 30_000 }, async (t) => {
  const accounts = new TestAccounts();
  let base = "";
  const as = new OAuthServer({
    publicUrl: () => base,
    store: new MemoryRecordStore(),
    accounts,
    frontEnd: {
      userHeader: "x-hub-user",
      groupsHeader: undefined,
      secretHeader: "x-hub-front-secret",
      secretFile: "/unused",
      secret: SECRET,
      from: ["127.0.0.1"],
      createAccounts: false,
    },
  });
  const server = createServer((req, res) => {
    void Promise.resolve(as.handleNow(req, res)).then((handled) => {
      if (!handled) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ headers: req.headers, raw: req.rawHeaders }));
    });
  });
  base = await listen(server, t);
  const seen = await (await fetch(`${base}/api/mcp/demo/mcp`, { headers: { "X-Hub-User": "ada", "X-Hub-Front-Secret": SECRET, "X-Other": "kept" } })).json();
  const { headers, raw } = seen as { headers: Record<string, string>; raw: string[] };
  assert.equal(headers["x-hub-user"], undefined);
  assert.equal(headers["x-hub-front-secret"], undefined);
  assert.equal(headers["x-other"], "kept");
  assert.ok(!raw.some((h) => /front-secret|hub-user/i.test(h)));
  // Believed (listed address, right secret) and without a groups header: the store's account and groups stand.
  const page = await fetch(
    authorizeUrl(base, { response_type: "code", client_id: await registerPublic(base), code_challenge: pkcePair().challenge, code_challenge_method: "S256" }),
    {
      headers: { "X-Hub-User": "ada", "X-Hub-Front-Secret": SECRET },
    },
  );
  assert.match(await page.text(), /act as <strong>ada<\/strong>/);
  // Not an account, and this front end may not make one: the login form.
  const stranger = await fetch(
    authorizeUrl(base, { response_type: "code", client_id: await registerPublic(base), code_challenge: pkcePair().challenge, code_challenge_method: "S256" }),
    {
      headers: { "X-Hub-User": "zed", "X-Hub-Front-Secret": SECRET },
    },
  );
  assert.match(await stranger.text(), /type="password"/);
});

test("a front end that may make accounts: a new person without a groups header gets an account with none", { timeout: 30_000 }, async (t) => {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  let base = "";
  const as = new OAuthServer({
    publicUrl: () => base,
    store,
    accounts,
    frontEnd: {
      userHeader: "x-hub-user",
      groupsHeader: undefined,
      secretHeader: "x-hub-front-secret",
      secretFile: "/unused",
      secret: SECRET,
      from: ["127.0.0.1"],
      createAccounts: true,
    },
  });
  const server = createServer((req, res) => {
    void Promise.resolve(as.handleNow(req, res)).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  base = await listen(server, t);
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: await registerPublic(base),
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
  });
  const page = await fetch(url, { headers: { "X-Hub-User": "newbie", "X-Hub-Front-Secret": SECRET } });
  assert.match(await page.text(), /act as <strong>newbie<\/strong>/);
  assert.deepEqual(await accounts.groupsOf("newbie"), []);
});
