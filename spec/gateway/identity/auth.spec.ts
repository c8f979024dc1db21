// The seams for OAuth: an authorization server's routes are served before the gateway's,
// its verifier joins the API tokens, and a token bound to another resource is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AuthorizationServer, Principal } from "../../../lib/gateway/contracts/interfaces.ts";
import { fake, json, post, rpc, startHarness } from "../helpers.ts";

test("an authorization server plugs in: routes first, its tokens checked per resource", async (t) => {
  const asked: string[] = [];
  let base = "";
  const principals: Record<string, () => Principal> = {
    "oauth-fake": () => ({ user: "alice", groups: ["users"], kind: "oauth", audience: `${base}/api/mcp/fake/mcp` }),
    "oauth-other": () => ({ user: "alice", groups: ["users"], kind: "oauth", audience: `${base}/api/mcp/other/mcp` }),
    "oauth-hub": () => ({ user: "alice", groups: ["users"], kind: "oauth" }),
  };
  const authorizationServer: AuthorizationServer = {
    async handle(req, res) {
      if (!req.url?.startsWith("/authorize/")) return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ issuer: `${base}/authorize` }));
      return true;
    },
    verifier: {
      async verify(token, resource) {
        asked.push(resource);
        if (token === "explode") throw new Error("verifier bug");
        return principals[token]?.() ?? null;
      },
    },
  };
  const h = await startHarness(t, { tools: { fake: { revisions: { default: fake() } }, other: { revisions: { default: fake() } } } }, { authorizationServer });
  base = h.base;

  const meta = await json(await fetch(`${h.base}/authorize/.well-known/oauth-authorization-server`));
  const resource = await json(await fetch(`${h.base}/.well-known/oauth-protected-resource/api/mcp/fake/mcp`));
  assert.equal(meta.issuer, resource.authorization_servers[0]);

  const ok = await post(`${h.base}/api/mcp/fake/mcp`, "oauth-fake", rpc("seen"));
  assert.equal(ok.status, 200);
  assert.equal((await json(ok)).result.env.user, "alice");
  assert.ok(asked.includes(`${h.base}/api/mcp/fake/mcp`));

  const wrongAudience = await post(`${h.base}/api/mcp/fake/mcp`, "oauth-other", rpc("seen"));
  assert.equal(wrongAudience.status, 401);
  assert.match(wrongAudience.headers.get("www-authenticate")!, /invalid_token/);
  await wrongAudience.text();

  const hubWide = await post(`${h.base}/api/mcp/other/mcp`, "oauth-hub", rpc("seen"));
  assert.equal(hubWide.status, 200);
  await hubWide.text();

  const apiToken = await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.bob, rpc("seen"));
  assert.equal(apiToken.status, 200);
  await apiToken.text();

  const broken = await post(`${h.base}/api/mcp/fake/mcp`, "explode", rpc("seen"));
  assert.equal(broken.status, 401);
  await broken.text();
});

test("authorize asks verifiers in order, at once while each can tell without I/O (verifyNow), else through verify", async () => {
  const { authorize } = await import("../../../lib/gateway/identity/auth.ts");
  const { GatewayError } = await import("../../../lib/gateway/contracts/respond.ts");
  const req = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as unknown as import("node:http").IncomingMessage;
  const spec = { groups: ["staff"], revisions: {}, catalog: true, catalogRevision: "default", defaultRevision: "default" };
  const ada: Principal = { user: "ada", groups: ["staff"], kind: "api-token" };
  const asked: string[] = [];
  const remembering = {
    verifyNow: (token: string) => (token === "known" ? ada : token === "other" ? null : undefined),
    verify: async (token: string) => (asked.push(`first ${token}`), token === "known" || token === "looked-up" ? ada : null),
  };
  const second = { verify: async (token: string) => (asked.push(`second ${token}`), token === "other" ? { ...ada, user: "bob", groups: [] } : null) };
  const verifiers = [remembering, second];
  const now = authorize(req("known"), verifiers, "http://gw", "demo", spec);
  assert.ok(!(now instanceof Promise), "a remembered bearer is answered without a promise");
  assert.equal((now as Principal).user, "ada");
  assert.equal((await authorize(req("looked-up"), verifiers, "http://gw", "demo", spec)).user, "ada");
  // The first verifier says at once the token is not its own: the second is asked, and its groups decide.
  await assert.rejects(
    Promise.resolve().then(() => authorize(req("other"), verifiers, "http://gw", "demo", spec)),
    (err: unknown) => {
      return err instanceof GatewayError && err.error === "forbidden";
    },
  );
  await assert.rejects(
    Promise.resolve().then(() => authorize(req("nobody"), verifiers, "http://gw", "demo", spec)),
    (err: unknown) => {
      return err instanceof GatewayError && err.error === "unauthorized";
    },
  );
  assert.deepEqual(asked, ["first looked-up", "second other", "first nobody", "second nobody"]);
});
