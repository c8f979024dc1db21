// Attacks on grant bookkeeping: revocation racing a refresh, refresh-token reuse, and codes
// burned or replayed by someone who only saw them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordStore } from "../../../lib/gateway/contracts/interfaces.ts";
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { GRANTS } from "../../../lib/gateway/oauth/grants.ts";
import { obtainTokens, pkcePair, registerPublic, signIn, startAuthorizationServer, token, type Tokens } from "./harness.ts";

const REDIRECT = "http://127.0.0.1:5555/callback";

/** A store that can stop the next read of a collection until the test lets it go on. */
class HoldingStore extends MemoryRecordStore {
  #hold: { collection: string; reached: () => void; gate: Promise<void> } | undefined;

  holdNextGet(collection: string): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((resolve) => (reached = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.#hold = { collection, reached, gate };
    return { reached: reachedP, release };
  }

  override async get<T>(collection: string, id: string): Promise<T | undefined> {
    const value = await super.get<T>(collection, id);
    const hold = this.#hold;
    if (hold?.collection === collection) {
      this.#hold = undefined;
      hold.reached();
      await hold.gate;
    }
    return value;
  }
}

const refreshWith = (base: string, clientId: string, refreshToken: string): Promise<Response> =>
  token(base, { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });

const revoke = async (base: string, clientId: string, value: string): Promise<void> => {
  const res = await fetch(`${base}/developer/oauth/revoke`, { method: "POST", body: new URLSearchParams({ client_id: clientId, token: value }) });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
};

/** Whether the tokens of a refresh answer (if it succeeded) still work. */
async function stillWorks(base: string, clientId: string, answer: Response, verify: (t: string) => Promise<unknown>): Promise<boolean> {
  if (answer.status !== 200) {
    await answer.arrayBuffer();
    return false;
  }
  const fresh = (await answer.json()) as Tokens;
  if (await verify(fresh.access_token)) return true;
  const again = await refreshWith(base, clientId, fresh.refresh_token);
  await again.arrayBuffer();
  return again.status === 200;
}

test("a revocation that lands while a refresh is under way is never undone, and the refreshed tokens are dead", async (t) => {
  const store = new HoldingStore();
  const { base, server } = await startAuthorizationServer(t, { store });
  const { clientId, tokens } = await obtainTokens(base);
  // The refresh has read the grant (live) and is paused; the revocation runs to the end.
  const hold = store.holdNextGet(GRANTS);
  const refreshing = refreshWith(base, clientId, tokens.refresh_token);
  await hold.reached;
  await revoke(base, clientId, tokens.access_token);
  hold.release();
  const answer = await refreshing;
  const grants = await store.list<{ revoked?: boolean }>(GRANTS);
  assert.deepEqual(
    grants.map((g) => g.value.revoked),
    [true],
    "the grant stays revoked",
  );
  assert.equal(await stillWorks(base, clientId, answer, (a) => server.verifier.verify(a, base)), false);
});

test("refresh and revocation racing on a file data dir: the revocation always wins (10 trials)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hubmcp-race-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store: RecordStore = new FileRecordStore(dir);
  const { base, server, clock } = await startAuthorizationServer(t, { store });
  let undone = 0;
  for (let trial = 0; trial < 10; trial++) {
    clock.now += 60_000; // past the sign-in rate limit
    const { clientId, tokens } = await obtainTokens(base);
    const [answer] = await Promise.all([refreshWith(base, clientId, tokens.refresh_token), revoke(base, clientId, tokens.refresh_token)]);
    if (await stillWorks(base, clientId, answer, (a) => server.verifier.verify(a, base))) undone++;
  }
  assert.equal(undone, 0, "revocations undone by a racing refresh");
});

test("a refresh token is good once: redeeming a used one revokes the family and the new tokens stop working", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const { clientId, tokens: t0 } = await obtainTokens(base);
  const first = await refreshWith(base, clientId, t0.refresh_token);
  assert.equal(first.status, 200);
  const t1 = (await first.json()) as Tokens;
  assert.ok(await server.verifier.verify(t1.access_token, base));
  const replay = await refreshWith(base, clientId, t0.refresh_token);
  assert.equal(replay.status, 400);
  assert.equal(((await replay.json()) as { error: string }).error, "invalid_grant");
  assert.equal(await server.verifier.verify(t1.access_token, base), null, "the family's access token is dead");
  const next = await refreshWith(base, clientId, t1.refresh_token);
  assert.equal(next.status, 400, "the family's refresh token is dead");
  await next.arrayBuffer();
});

test("a thief and the client presenting one refresh token at once: at most one answer, then the family is revoked", async (t) => {
  const { base, server } = await startAuthorizationServer(t);
  const { clientId, tokens } = await obtainTokens(base);
  const answers = await Promise.all([1, 2, 3, 4, 5].map(() => refreshWith(base, clientId, tokens.refresh_token)));
  assert.ok(answers.filter((a) => a.status === 200).length <= 1);
  let working = 0;
  for (const answer of answers) if (await stillWorks(base, clientId, answer, (a) => server.verifier.verify(a, base))) working++;
  assert.equal(working, 0, "no token of the family works after the reuse");
});

test("a code presented with the wrong verifier, client or redirect is not burned; the right exchange still works", async (t) => {
  const { base } = await startAuthorizationServer(t);
  const clientId = await registerPublic(base);
  const other = await registerPublic(base, REDIRECT, "Other");
  const { verifier, challenge } = pkcePair();
  const code = (await signIn(base, { clientId, challenge })).searchParams.get("code")!;
  const attempts: Array<Record<string, string>> = [
    { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: pkcePair().verifier },
    { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT },
    { grant_type: "authorization_code", client_id: other, code, redirect_uri: REDIRECT, code_verifier: verifier },
    { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: "http://127.0.0.1:5555/elsewhere", code_verifier: verifier },
    { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier, resource: "https://elsewhere.example/" },
  ];
  for (const attempt of attempts) {
    const res = await token(base, attempt);
    assert.equal(res.status, 400);
    await res.arrayBuffer();
  }
  const good = await token(base, { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
  assert.equal(good.status, 200, "the code survived the attacker's attempts");
  await good.arrayBuffer();
});

test("concurrent valid exchanges of one code: one answer at most, and the grant is revoked as a replay", async (t) => {
  const store = new MemoryRecordStore();
  const { base, server } = await startAuthorizationServer(t, { store });
  const clientId = await registerPublic(base);
  const { verifier, challenge } = pkcePair();
  const code = (await signIn(base, { clientId, challenge })).searchParams.get("code")!;
  const exchange = { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier };
  const answers = await Promise.all([1, 2, 3].map(() => token(base, exchange)));
  const ok = answers.filter((a) => a.status === 200);
  assert.equal(ok.length, 1);
  const issued = (await ok[0]!.json()) as Tokens;
  for (const a of answers) if (a.status !== 200) await a.arrayBuffer();
  assert.equal(await server.verifier.verify(issued.access_token, base), null);
  assert.deepEqual(
    (await store.list<{ revoked?: boolean }>(GRANTS)).map((g) => g.value.revoked),
    [true],
  );
});
