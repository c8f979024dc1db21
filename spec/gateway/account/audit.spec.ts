// Changes a person makes on their account page are lines of the audit trail, as the operator's
// are: a token made (its id, name and expiry), a token revoked, an application signed out.
// Never the token itself; a revocation of what is not one's own writes nothing.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pkcePair, registerPublic, signIn as oauthSignIn, token as tokenRequest } from "../oauth/harness.ts";
import { PageClient } from "./client.ts";
import { startPagesHub } from "./hub.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";
const DAY_MS = 86_400_000;

test("/account's token and app changes are audit lines: person, token id, name and expiry, never the token", { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "account-audit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startPagesHub(t, { tools: {}, audit: { dir } });

  // alice connects an application, so she has a grant to sign out.
  const clientId = await registerPublic(h.base, REDIRECT, "Spec app");
  const { verifier, challenge } = pkcePair();
  const back = await oauthSignIn(h.base, { clientId, challenge, user: "alice", password: "pw-alice" });
  const exchanged = await tokenRequest(h.base, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: back.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  assert.equal(exchanged.status, 200);
  await exchanged.arrayBuffer();

  const alice = new PageClient(h.base);
  let html = await alice.signIn("alice", "pw-alice");
  const before = Date.now();
  const made = await alice.act(html, { action: "create-token", name: "laptop", expires: "30" });
  const shown = await made.text();
  const secret = /hubmcp_([a-z0-9]{12})_[A-Za-z0-9_-]{43}/.exec(shown)!;
  const id = secret[1]!;
  html = await alice.page();
  assert.equal((await alice.act(html, { action: "revoke-token", id })).status, 303);
  // bob's token, or none at all: a 404 and no line.
  const bobs = /^hubmcp_([a-z0-9]{12})_/.exec(h.tokens.bob)![1]!;
  for (const other of [bobs, id]) assert.equal((await alice.act(html, { action: "revoke-token", id: other })).status, 404);
  const grant = /name="action" value="revoke-app"><input type="hidden" name="id" value="([^"]+)"/.exec(html)![1]!;
  assert.equal((await alice.act(html, { action: "revoke-app", id: grant })).status, 303);

  await h.gw.close();
  const text = readFileSync(join(dir, "audit.jsonl"), "utf8");
  assert.ok(!text.includes(secret[0]) && !text.includes(secret[0].slice(20)), "never the token, nor its secret part");
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.event.startsWith("token.") || l.event.startsWith("grant."));
  assert.deepEqual(
    lines.map(({ event, person, tokenId, name, outcome, reason }) => ({ event, person, tokenId, name, outcome, reason })),
    [
      { event: "grant.approved", person: "alice", tokenId: undefined, name: undefined, outcome: "ok", reason: undefined },
      { event: "token.create", person: "alice", tokenId: id, name: "laptop", outcome: "ok", reason: undefined },
      { event: "token.revoke", person: "alice", tokenId: id, name: "laptop", outcome: "ok", reason: undefined },
      { event: "grant.revoked", person: "alice", tokenId: undefined, name: undefined, outcome: "ok", reason: "revoked_by_user" },
    ],
  );
  const [created, revoked] = [lines[1], lines[2]];
  const expires = Date.parse(created.expiresAt);
  assert.ok(expires >= before + 30 * DAY_MS && expires <= Date.now() + 30 * DAY_MS, "the expiry chosen on the page");
  assert.equal(revoked.expiresAt, created.expiresAt);
});
