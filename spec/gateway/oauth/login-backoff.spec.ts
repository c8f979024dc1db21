// Password guessing spread over many addresses: a back-off per account, short enough that a
// guesser can't keep the person out for long.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoginBackoff } from "../../../lib/gateway/oauth/login-backoff.ts";
import { authorizeUrl, hiddenField, pkcePair, registerPublic, startAuthorizationServer, TestAccounts } from "./harness.ts";

class CountingAccounts extends TestAccounts {
  checks = 0;
  override async verifyPassword(user: string, password: string): Promise<{ user: string; groups: readonly string[] } | null> {
    this.checks++;
    return super.verifyPassword(user, password);
  }
}

async function loginForm(base: string): Promise<(username: string, password: string, address: string) => Promise<Response>> {
  const clientId = await registerPublic(base);
  const page = await fetch(
    authorizeUrl(base, {
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:5555/callback",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    }),
  );
  const html = await page.text();
  const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
  const fields = { request: hiddenField(html, "request"), csrf: hiddenField(html, "csrf") };
  return (username, password, address) =>
    fetch(`${base}/developer/oauth/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, "X-Test-Address": address },
      body: new URLSearchParams({ ...fields, username, password }),
    });
}

test("51 guesses at one account from 6 addresses: 5 are checked, the rest get 429 with Retry-After; the person gets in a minute later", async (t) => {
  const accounts = new CountingAccounts();
  const { base, clock } = await startAuthorizationServer(t, { accounts, clientIp: (req) => String(req.headers["x-test-address"]) });
  const login = await loginForm(base);
  const statuses: number[] = [];
  let retryAfter = 0;
  for (let i = 0; i < 51; i++) {
    const res = await login("ada", `guess-${i}`, `198.51.100.${i % 6}`);
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfter = Number(res.headers.get("retry-after"));
      assert.match(await res.text(), /Too many attempts/);
    } else await res.arrayBuffer();
  }
  assert.equal(accounts.checks, 5, "passwords actually tried");
  assert.equal(statuses.filter((s) => s === 401).length, 5);
  assert.equal(statuses.filter((s) => s === 429).length, 46);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  // Another account on the same hub is not held back by this one.
  const other = await login("bob", "x", "198.51.100.9");
  assert.equal(other.status, 401);
  await other.arrayBuffer();
  clock.now += 60_000;
  const person = await login("ada", "correct horse", "203.0.113.7");
  assert.equal(person.status, 303, "never locked out for longer than the cap");
  await person.arrayBuffer();
});

test("the back-off doubles per failure past the free tries, is capped at a minute, and a sign-in clears it", () => {
  const clock = { now: 0 };
  const backoff = new LoginBackoff(() => clock.now);
  for (let i = 0; i < 5; i++) {
    assert.equal(backoff.wait("ada"), 0);
    backoff.failed("ada");
  }
  const waits: number[] = [];
  for (let i = 0; i < 10; i++) {
    const wait = backoff.wait("ada");
    waits.push(wait);
    clock.now += wait * 1000;
    assert.equal(backoff.wait("ada"), 0);
    backoff.failed("ada");
  }
  assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
  assert.equal(backoff.wait("ADA"), 60, "account names are matched without case");
  assert.equal(backoff.wait("grace"), 0);
  clock.now += 60_000;
  backoff.succeeded("ada");
  backoff.failed("ada");
  assert.equal(backoff.wait("ada"), 0, "a sign-in starts the count again");
  // Quiet accounts are forgotten, and the table stays bounded under a spray of names.
  for (let i = 0; i < 20_000; i++) backoff.failed(`spray-${i}`);
  assert.ok(backoff.size <= 10_000);
  clock.now += 3600_000;
  backoff.failed("late");
  assert.equal(backoff.size, 1, "an hour of quiet is forgotten");
});

test("parallel guesses are counted as they start, and flooding with other names does not free an account", () => {
  let now = 1_000_000;
  const backoff = new LoginBackoff(() => now);
  // Guesses whose password checks are all still running: the sixth already waits.
  const waits = Array.from({ length: 8 }, () => backoff.attempt("Ada"));
  assert.deepEqual(waits.slice(0, 5), [0, 0, 0, 0, 0]);
  assert.ok(waits.slice(5).every((w) => w > 0));
  for (let i = 0; i < 10_050; i++) backoff.failed(`someone-${i}`);
  assert.ok(backoff.wait("ada") > 0, "ten thousand other names do not evict an account that is waiting");
  backoff.succeeded("ada");
  assert.equal(backoff.attempt("ada"), 0);
  now += 3600_000;
});
