import assert from "node:assert/strict";
import { test } from "node:test";
import { FixedWindowLimiter } from "../../../lib/gateway/oauth/rate-limit.ts";

test("a fixed window per key: over the limit answers the seconds left, a new window resets", () => {
  const clock = { now: 0 };
  const limiter = new FixedWindowLimiter(2, 60_000, () => clock.now);
  assert.equal(limiter.hit("a"), 0);
  assert.equal(limiter.hit("a"), 0);
  assert.equal(limiter.hit("b"), 0);
  clock.now = 30_000;
  assert.equal(limiter.hit("a"), 30);
  clock.now = 60_000;
  assert.equal(limiter.hit("a"), 0);
});
