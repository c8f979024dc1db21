// One person cannot starve a tool server shared with others (issue 20, point 9): their
// requests running on it at once are bounded (429 beyond), so the pooled connections to it
// stay free for everyone else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json, post, rpc, startHarness } from "../helpers.ts";
import { reply, upstreamStub } from "../upstream-stub.ts";

test("two people and a slow tool: one person's 300 hanging calls get 429 beyond 16; the other's calls go through", { timeout: 60_000 }, async (t) => {
  let hanging = 0;
  let closed = 0;
  const waiters: Array<() => void> = [];
  const changed = (): void => waiters.splice(0).forEach((w) => w());
  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method !== "slow") return reply(res, msg, {});
    hanging++;
    res.once("close", () => (closed++, changed()));
    changed();
  });
  // The per-user rate limit is lifted so that only the concurrency bound answers.
  const h = await startHarness(t, { tools: { shared: { revisions: { default: { url: stub.url } } } }, limits: { ratePerSecond: 10_000, rateBurst: 10_000 } });
  const mcp = `${h.base}/api/mcp/shared/mcp`;
  const ac = new AbortController();
  t.after(() => ac.abort());
  const refused: Response[] = [];
  const calls = Array.from({ length: 300 }, (_, i) =>
    fetch(mcp, {
      method: "POST",
      signal: ac.signal,
      headers: { "content-type": "application/json", authorization: `Bearer ${h.tokens.alice}` },
      body: rpc("slow", {}, i),
    })
      .then((res) => {
        if (res.status === 429) refused.push(res);
        changed();
      })
      .catch(() => "aborted"),
  );
  await until(() => (hanging === 16 && refused.length === 284) || hanging > 16);
  assert.equal(hanging, 16, "the tool server holds 16 of the person's calls, no more");
  const first = refused[0]!;
  assert.equal(first.headers.get("retry-after"), "1");
  assert.equal(first.headers.get("access-control-allow-origin"), "*");
  const error = await json(first);
  assert.equal(error.error, "too_many_running");
  assert.match(error.message, /At most 16 of your requests/);

  const other = await post(mcp, h.tokens.bob, rpc("ping"));
  assert.equal(other.status, 200, "another person's call goes through");
  await other.text();
  const own = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(own.status, 429, "the saturating person waits for their own calls");
  await own.text();

  ac.abort();
  await Promise.all(calls);
  await until(() => closed === 16);
  const again = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(again.status, 200, "finished calls give their slots back");
  await again.text();
});

test("a client gone while its tool session starts takes no slot with it", { timeout: 30_000 }, async (t) => {
  const stub = await upstreamStub(t, (msg, _req, res) => reply(res, msg, {}));
  let started: () => void = () => {};
  const launching = new Promise<void>((resolve) => (started = resolve));
  let ready: () => void = () => {};
  const readyToServe = new Promise<void>((resolve) => (ready = resolve));
  const launch = async () => {
    started();
    await readyToServe;
    return { url: stub.url, exited: new Promise<void>(() => {}), stop: async () => {} };
  };
  const h = await startHarness(t, { tools: { slow: { revisions: { default: { command: ["unused"] } } } }, limits: { upstreamRequestsPerUser: 1 } }, { launch });
  const gone = new Promise<void>((resolve) => h.gw.httpServer.once("request", (_req, res) => res.once("close", () => resolve())));
  const ac = new AbortController();
  const call = fetch(`${h.base}/api/mcp/slow/mcp`, {
    method: "POST",
    signal: ac.signal,
    headers: { "content-type": "application/json", authorization: `Bearer ${h.tokens.alice}` },
    body: rpc("ping"),
  }).catch(() => "aborted");
  await launching;
  ac.abort();
  await call;
  await gone;
  ready();
  const next = await post(`${h.base}/api/mcp/slow/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(next.status, 200, "the person's only slot is free");
  await next.text();
});
