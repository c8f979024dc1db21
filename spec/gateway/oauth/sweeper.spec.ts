import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveOptions } from "../../../lib/gateway/oauth/options.ts";
import { Sweeper } from "../../../lib/gateway/oauth/sweeper.ts";
import { obtainTokens, register, startAuthorizationServer, token } from "./harness.ts";

test("a sweep removes dead records and keeps live sign-ins working", async (t) => {
  const h = await startAuthorizationServer(t);
  const sweeper = new Sweeper(resolveOptions({ publicUrl: h.base, store: h.store, accounts: h.accounts, now: () => h.clock.now }));
  const live = await obtainTokens(h.base);
  const revoked = await obtainTokens(h.base);
  await (
    await fetch(`${h.base}/developer/oauth/revoke`, {
      method: "POST",
      body: new URLSearchParams({ client_id: revoked.clientId, token: revoked.tokens.refresh_token }),
    })
  ).arrayBuffer();
  await (await register(h.base, { client_name: "never used", redirect_uris: ["http://127.0.0.1:9/cb"] })).arrayBuffer();
  // Both grants' last uses (the account page's): the revoked grant's goes with it.
  for (const { id } of await h.store.list("oauth-grants")) await h.store.put("oauth-grant-uses", id, { at: h.clock.now });
  h.clock.now += 25 * 3600_000;
  const before = await h.store.list("oauth-clients");
  const removed = await sweeper.sweep();
  assert.ok(removed >= 5, `removed ${removed}`);
  assert.equal((await h.store.list("oauth-clients")).length, before.length - 1);
  assert.equal((await h.store.list("oauth-codes")).length, 0);
  assert.equal((await h.store.list("oauth-requests")).length, 0);
  assert.equal((await h.store.list("oauth-sessions")).length, 0);
  assert.equal((await h.store.list("oauth-grants")).length, 1);
  assert.deepEqual(
    (await h.store.list("oauth-grant-uses")).map((u) => u.id),
    (await h.store.list("oauth-grants")).map((g) => g.id),
  );
  const refreshed = await token(h.base, { grant_type: "refresh_token", client_id: live.clientId, refresh_token: live.tokens.refresh_token });
  assert.equal(refreshed.status, 200);
  await refreshed.arrayBuffer();
});

test("a sweep ends grants whose assertion token has run out, and forgets used assertions and sign-ins at the provider", async (t) => {
  const h = await startAuthorizationServer(t);
  const sweeper = new Sweeper(resolveOptions({ publicUrl: h.base, store: h.store, accounts: h.accounts, now: () => h.clock.now }));
  const grant = { client_id: "c", user: "ada", created_at: h.clock.now, used_generation: 0 };
  await h.store.put("oauth-grants", "ended", { ...grant, expires_at: h.clock.now - 1 });
  await h.store.put("oauth-grants", "running", { ...grant, expires_at: h.clock.now + 60_000 });
  await h.store.put("oauth-assertion-uses", "u", { expires_at: h.clock.now - 1 });
  await h.store.put("oauth-upstream", "s", { expires_at: h.clock.now - 1 });
  assert.equal(await sweeper.sweep(), 3);
  assert.deepEqual(
    (await h.store.list("oauth-grants")).map((g) => g.id),
    ["running"],
  );
});

test("the background sweep runs at most once an hour and survives a failing store", async (t) => {
  const h = await startAuthorizationServer(t);
  let lists = 0;
  const failing = {
    ...h.store,
    list: async () => {
      lists += 1;
      throw new Error("disk gone");
    },
  } as unknown as typeof h.store;
  const sweeper = new Sweeper(resolveOptions({ publicUrl: h.base, store: failing, accounts: h.accounts, now: () => h.clock.now }));
  const first = sweeper.maybeSweep();
  assert.equal(sweeper.maybeSweep(), undefined, "one at a time");
  assert.equal(await first, 0);
  assert.equal(sweeper.maybeSweep(), undefined, "not again within the hour");
  assert.equal(lists, 1);
  h.clock.now += 3600_000;
  assert.equal(await sweeper.maybeSweep(), 0);
  assert.equal(lists, 2);
});
