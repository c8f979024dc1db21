import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  canonicalJson,
  createRequestStateCodec,
  DEFAULT_STATE_TTL_MS,
  MAX_STATE_CHARS,
  paramsDigest,
  type StateBinding,
} from "../../../lib/mcp/stateless/request-state.ts";

const key = randomBytes(32);
const call = { name: "book", arguments: { seat: "12A", when: { day: 3 } } };
const binding: StateBinding = { method: "tools/call", digest: paramsDigest(call) };

test("a sealed state opens with the same binding and gives back what was sealed", () => {
  const codec = createRequestStateCodec({ key });
  const token = codec.seal({ answers: { user_name: { action: "accept", content: { name: "Ada" } } } }, binding);
  assert.match(token, /^s1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(codec.open(token, binding), { ok: true, state: { answers: { user_name: { action: "accept", content: { name: "Ada" } } } } });
});

test("any change to the token is refused", () => {
  const codec = createRequestStateCodec({ key });
  const token = codec.seal({ n: 1 }, binding);
  const [v, body, sig] = token.split(".") as [string, string, string];
  const flipped = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
  const forgedBody = Buffer.from(JSON.stringify({ m: "tools/call", d: binding.digest, p: null, e: Date.now() + 1e9, s: { n: 2 } })).toString("base64url");
  assert.deepEqual(codec.open(`${token}-TAMPERED`, binding), { ok: false, reason: "malformed" });
  assert.deepEqual(codec.open(`${v}.${flipped(body)}.${sig}`, binding), { ok: false, reason: "bad-signature" });
  assert.deepEqual(codec.open(`${v}.${forgedBody}.${sig}`, binding), { ok: false, reason: "bad-signature" });
  assert.deepEqual(codec.open(`${v}.${body}.${flipped(sig)}`, binding), { ok: false, reason: "bad-signature" });
  for (const bad of [undefined, 42, "", "s1.x", `s2.${body}.${sig}`, `${v}.${body}!.${sig}`]) {
    assert.equal(codec.open(bad, binding).ok, false, String(bad));
  }
  assert.deepEqual(codec.open("s1." + "A".repeat(MAX_STATE_CHARS) + "." + sig, binding), { ok: false, reason: "too-large" });
});

test("a token from another server key is refused", () => {
  const token = createRequestStateCodec({ key: randomBytes(32) }).seal({}, binding);
  assert.deepEqual(createRequestStateCodec({ key }).open(token, binding), { ok: false, reason: "bad-signature" });
});

test("a token expires after its ttl", () => {
  let now = 1_000_000;
  const codec = createRequestStateCodec({ key, now: () => now });
  const token = codec.seal({}, binding);
  now += DEFAULT_STATE_TTL_MS;
  assert.equal(codec.open(token, binding).ok, true);
  now += 1;
  assert.deepEqual(codec.open(token, binding), { ok: false, reason: "expired" });
  const short = createRequestStateCodec({ key, ttlMs: 5, now: () => now });
  const quick = short.seal({}, binding);
  now += 6;
  assert.deepEqual(short.open(quick, binding), { ok: false, reason: "expired" });
});

test("a token is bound to its method, its arguments and its principal", () => {
  const codec = createRequestStateCodec({ key });
  const token = codec.seal({}, { ...binding, principal: "alice" });
  assert.equal(codec.open(token, { ...binding, principal: "alice" }).ok, true);
  assert.deepEqual(codec.open(token, { ...binding, principal: "bob" }), { ok: false, reason: "wrong-request" });
  assert.deepEqual(codec.open(token, binding), { ok: false, reason: "wrong-request" });
  assert.deepEqual(codec.open(token, { ...binding, principal: "alice", method: "prompts/get" }), { ok: false, reason: "wrong-request" });
  const other = paramsDigest({ ...call, arguments: { ...call.arguments, seat: "1A" } });
  assert.deepEqual(codec.open(token, { ...binding, principal: "alice", digest: other }), { ok: false, reason: "wrong-request" });
  // The principal never appears in the clear.
  assert.equal(
    Buffer.from(token.split(".")[1] ?? "", "base64url")
      .toString()
      .includes("alice"),
    false,
  );
});

test("the digest ignores key order and per-round fields, not arguments", () => {
  const a = paramsDigest({ name: "t", arguments: { x: 1, y: [1, { b: 2, a: 1 }] } });
  const b = paramsDigest({ arguments: { y: [1, { a: 1, b: 2 }], x: 1 }, name: "t", _meta: { z: 1 }, inputResponses: { k: {} }, requestState: "s" });
  assert.equal(a, b);
  assert.notEqual(a, paramsDigest({ name: "t", arguments: { x: 2, y: [1, { a: 1, b: 2 }] } }));
  assert.equal(paramsDigest(undefined), paramsDigest({}));
  assert.equal(canonicalJson({ b: undefined, a: null }), '{"a":null}');
});

test("weak keys and bad ttls are refused at construction", () => {
  assert.throws(() => createRequestStateCodec({ key: randomBytes(16) }), TypeError);
  assert.throws(() => createRequestStateCodec({ ttlMs: 0 }), TypeError);
  assert.throws(() => createRequestStateCodec({ ttlMs: 1.5 }), TypeError);
  // Without a key, each codec makes its own: tokens do not cross.
  const token = createRequestStateCodec().seal({}, binding);
  assert.equal(createRequestStateCodec().open(token, binding).ok, false);
});
