import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createHash } from "node:crypto";
import { hmac, safeEqual, sameDigest } from "../../lib/util/secrets.ts";

test("safeEqual: equal text or bytes only; other lengths and contents are unequal", () => {
  assert.equal(safeEqual("hubmcp_abc", "hubmcp_abc"), true);
  assert.equal(safeEqual(Buffer.from("key"), Buffer.from("key")), true);
  assert.equal(safeEqual("hubmcp_abc", "hubmcp_abd"), false);
  assert.equal(safeEqual("hubmcp_abc", "hubmcp_ab"), false);
  assert.equal(safeEqual("", "x"), false);
  assert.equal(safeEqual("", ""), true);
});

test("hmac: HMAC-SHA-256 of UTF-8 text, base64url, under a text or byte key", () => {
  const expected = createHmac("sha256", "k").update("é", "utf8").digest("base64url");
  assert.equal(hmac("k", "é"), expected);
  assert.equal(hmac(Buffer.from("k"), "é"), expected);
});

test("sameDigest: equal digests only; another digest or a cut one is unequal, never a throw", () => {
  const of = (text: string): Buffer => createHash("sha256").update(text).digest();
  assert.equal(sameDigest(of("hubmcp_abc"), of("hubmcp_abc")), true);
  assert.equal(sameDigest(of("hubmcp_abc"), of("hubmcp_abd")), false);
  assert.equal(sameDigest(of("hubmcp_abc"), of("hubmcp_abc").subarray(0, 31)), false);
});
