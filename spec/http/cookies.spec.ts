import { test } from "node:test";
import assert from "node:assert/strict";
import { cookieValue, takeCookie } from "../../lib/http/cookies.ts";

test("cookieValue: the first part with the name, trimmed and as sent", () => {
  const header = " a=1; hubmcp-session = x%3Ay ;hubmcp-session=second; =nameless; flag";
  assert.equal(cookieValue(header, "hubmcp-session"), "x%3Ay");
  assert.equal(cookieValue(header, "a"), "1");
  assert.equal(cookieValue(header, "flag"), undefined);
  assert.equal(cookieValue(header, ""), undefined);
  assert.equal(cookieValue(undefined, "a"), undefined);
  assert.equal(cookieValue("", "a"), undefined);
});

test("takeCookie: the value out, every other part kept; nothing left is undefined", () => {
  assert.deepEqual(takeCookie("a=1; s=one; ; s=two; flag", "s"), { value: "one", rest: "a=1; flag" });
  assert.deepEqual(takeCookie("s=only", "s"), { value: "only", rest: undefined });
  assert.deepEqual(takeCookie(undefined, "s"), { value: undefined, rest: undefined });
});
