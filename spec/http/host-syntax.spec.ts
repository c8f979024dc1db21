import { test } from "node:test";
import assert from "node:assert/strict";
import { hostName, isHostSyntax } from "../../lib/http/host-syntax.ts";

test("isHostSyntax: names, IPv4 and bracketed IPv6, each with an optional port", () => {
  for (const ok of ["tools.example.org", "tools.example.org:8443", "10.0.0.5", "[::1]", "[fe80::1]:80"]) assert.equal(isHostSyntax(ok), true, ok);
  for (const bad of ["", "a b", "::1", "[::1", "host:port", "host:123456", "user@host", "*"]) assert.equal(isHostSyntax(bad), false, bad);
});

test("hostName: the part before the port, brackets kept", () => {
  assert.equal(hostName("a.b:80"), "a.b");
  assert.equal(hostName("a.b"), "a.b");
  assert.equal(hostName("[::1]:80"), "[::1]");
  assert.equal(hostName("[::1"), "[::1");
});
