import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEFAULT_REDIRECT_ALLOWLIST,
  isAnonymousRedirect,
  isLoopbackRedirect,
  redirectMatches,
  redirectProblem,
  redirectWith,
  withoutLoopbackPort,
} from "../../../lib/gateway/oauth/redirects.ts";

test("loopback redirects match on any port, everything else exactly", () => {
  const registered = ["http://127.0.0.1:33418/callback", "https://vscode.dev/redirect"];
  assert.equal(redirectMatches(registered, "http://127.0.0.1:50123/callback"), true);
  assert.equal(redirectMatches(registered, "http://127.0.0.1/callback"), true);
  assert.equal(redirectMatches(registered, "http://127.0.0.1:50123/other"), false);
  assert.equal(redirectMatches(registered, "http://localhost:33418/callback"), false);
  assert.equal(redirectMatches(registered, "https://vscode.dev/redirect"), true);
  assert.equal(redirectMatches(registered, "https://vscode.dev/redirect/"), false);
  assert.equal(redirectMatches(registered, "https://vscode.dev:444/redirect"), false);
  assert.equal(redirectMatches(["http://[::1]:1/cb"], "http://[::1]:9/cb"), true);
});

test("registrable redirects: https, loopback http, private-use schemes; never fragments", () => {
  assert.equal(redirectProblem("https://claude.ai/api/mcp/auth_callback"), undefined);
  assert.equal(redirectProblem("http://localhost:8080/cb"), undefined);
  assert.equal(redirectProblem("cursor://anysphere.cursor-retrieval/oauth/callback"), undefined);
  assert.match(redirectProblem("http://example.com/cb")!, /loopback/);
  assert.match(redirectProblem("https://a.example/cb#x")!, /fragment/);
  assert.match(redirectProblem("javascript:alert(1)")!, /scheme/);
  assert.match(redirectProblem("not a url")!, /absolute/);
  assert.match(redirectProblem(42)!, /strings/);
  assert.equal(isLoopbackRedirect("https://127.0.0.1/cb"), false);
  assert.equal(withoutLoopbackPort("http://127.0.0.1:9/cb?a=1"), "http://127.0.0.1/cb?a=1");
  assert.equal(withoutLoopbackPort("https://x.example:9/cb"), "https://x.example:9/cb");
});

test("the anonymous tier: loopback and the allowlisted hosts of the big clients", () => {
  const ok = [
    "http://127.0.0.1:1234/cb",
    "https://claude.ai/api/mcp/auth_callback",
    "https://claude.com/api/mcp/auth_callback",
    "https://chatgpt.com/connector_platform_oauth_redirect",
    "https://vscode.dev/redirect",
    "https://insiders.vscode.dev/redirect",
  ];
  for (const uri of ok) assert.equal(isAnonymousRedirect(uri, DEFAULT_REDIRECT_ALLOWLIST), true, uri);
  const refused = [
    "https://chatgpt.com/elsewhere",
    "https://chatgpt.com/connectorEVIL/cb",
    "https://chatgpt.com/connector_platform_oauth_redirectEVIL",
    "https://chatgpt.com/connector_platform_oauth_redirect/../x",
    "https://claude.ai.evil.example/cb",
    "http://claude.ai/cb",
    "https://evil.example/cb",
    "vscode://x/cb",
  ];
  for (const uri of refused) assert.equal(isAnonymousRedirect(uri, DEFAULT_REDIRECT_ALLOWLIST), false, uri);
});

test("redirectWith keeps the redirect's own query and skips absent values", () => {
  assert.equal(redirectWith("https://a.example/cb?x=1", { code: "c d", state: undefined }), "https://a.example/cb?x=1&code=c+d");
});
