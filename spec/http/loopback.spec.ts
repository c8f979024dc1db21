import { test } from "node:test";
import assert from "node:assert/strict";
import { isBrowserLoopbackHost, isLoopbackHost } from "../../lib/http/loopback.ts";

test("isLoopbackHost: 127/8, ::1 bracketed or bare, localhost; nothing else", () => {
  for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ["10.0.0.1", "128.0.0.1", "127.0.0.1.evil.example", "app.localhost", "::2", "localhost.example", ""]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test("isBrowserLoopbackHost: also names under .localhost", () => {
  assert.equal(isBrowserLoopbackHost("app.localhost"), true);
  assert.equal(isBrowserLoopbackHost("127.0.0.1"), true);
  assert.equal(isBrowserLoopbackHost("localhost.example"), false);
});
