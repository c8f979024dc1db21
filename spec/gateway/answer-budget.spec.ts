// Answers the gateway rewrites are read whole; the bytes held for them at once are bounded
// (issue 20, point 6): beyond `rewriteBudgetBytes` a request gets 503 with Retry-After.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { json, post, rpc, startHarness } from "./helpers.ts";
import { reply, upstreamStub } from "./upstream-stub.ts";

/** A ping answer (rewritten to `{}`, so read whole) of exactly `size` bytes. */
function bigList(id: unknown, size: number): Buffer {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"resources":[{"uri":"ui://big/page","name":"`;
  const tail = `"}]}}`;
  return Buffer.from(head + "x".repeat(size - head.length - tail.length) + tail);
}

test("rewrite budget: big rewritten answers at once beyond the budget get 503 with Retry-After, and the budget comes back", { timeout: 60_000 }, async (t) => {
  const held: Array<{ res: ServerResponse; rest: Buffer }> = [];
  let heldOne: () => void = () => {};
  const stub = await upstreamStub(t, (msg, _req, res) => {
    if (msg.method !== "ping" || msg.params?.small) return reply(res, msg, {});
    const body = bigList(msg.id, 600_000);
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    if (msg.params?.hold) {
      // Half now, the rest when the spec says: the gateway holds this answer meanwhile.
      res.write(body.subarray(0, 300_000));
      held.push({ res, rest: body.subarray(300_000) });
      heldOne();
      return;
    }
    res.end(body);
  });
  const h = await startHarness(t, { tools: { big: { revisions: { default: { url: stub.url } } } }, limits: { rewriteBudgetBytes: 1_000_000 } });
  const mcp = `${h.base}/api/mcp/big/mcp`;

  const alone = await post(mcp, h.tokens.alice, rpc("ping"));
  assert.equal(alone.status, 200, "one answer fits");
  assert.deepEqual((await json(alone)).result, {});

  const arrived = new Promise<void>((resolve) => (heldOne = resolve));
  const first = post(mcp, h.tokens.alice, rpc("ping", { hold: true }));
  await arrived;
  // The first answer's 600 kB are reserved once its headers reach the gateway; a second one no longer fits.
  let busy: Response | undefined;
  for (let i = 0; i < 200 && !busy; i++) {
    const res = await post(mcp, h.tokens.bob, rpc("ping"));
    if (res.status === 503) busy = res;
    else await res.arrayBuffer();
  }
  assert.ok(busy, "a second big answer beyond the budget is refused");
  assert.equal(busy.headers.get("retry-after"), "1");
  assert.equal((await json(busy)).error, "gateway_busy");
  const small = await post(mcp, h.tokens.bob, rpc("ping", { small: true }));
  assert.equal(small.status, 200, "small answers still fit");
  await small.text();

  held[0]!.res.end(held[0]!.rest);
  const done = await first;
  assert.equal(done.status, 200);
  assert.deepEqual((await json(done)).result, {});
  const after = await post(mcp, h.tokens.bob, rpc("ping"));
  assert.equal(after.status, 200, "the budget came back");
  await after.arrayBuffer();
});

test("rewrite budget: an answer larger than the whole budget is too large (502), not busy", async (t) => {
  const stub = await upstreamStub(t, (msg, _req, res) => {
    const body = bigList(msg.id, 300_000);
    // Chunked, no Content-Length: counted as it arrives.
    res.writeHead(200, { "content-type": "application/json" });
    res.write(body.subarray(0, 150_000));
    res.end(body.subarray(150_000));
  });
  const h = await startHarness(t, { tools: { big: { revisions: { default: { url: stub.url } } } }, limits: { rewriteBudgetBytes: 200_000 } });
  const res = await post(`${h.base}/api/mcp/big/mcp`, h.tokens.alice, rpc("ping"));
  assert.equal(res.status, 502);
  assert.equal((await json(res)).error, "upstream_too_large");
});
