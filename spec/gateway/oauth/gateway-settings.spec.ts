import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { DEFAULT_OAUTH_SETTINGS, parseOAuthSettings } from "../../../lib/gateway/oauth/gateway-settings.ts";

const fail = (key: string, problem: string): never => {
  throw new Error(`${key} ${problem}`);
};

test("the oauth section: on by default, false turns it off, known keys only", () => {
  assert.deepEqual(parseOAuthSettings(undefined, fail), DEFAULT_OAUTH_SETTINGS);
  assert.equal(parseOAuthSettings(false, fail).enabled, false);
  assert.deepEqual(
    parseOAuthSettings(
      {
        trustedUserHeader: "X-Forwarded-User",
        registrationGroups: ["admins"],
        registrationAllowlist: ["https://portal.example/oauth/"],
        clientAddressHeader: "X-Forwarded-For",
      },
      fail,
    ),
    {
      enabled: true,
      trustedUserHeader: "X-Forwarded-User",
      registrationAllowlist: ["https://portal.example/oauth/"],
      registrationGroups: ["admins"],
      clientAddressHeader: "X-Forwarded-For",
    },
  );
  assert.throws(() => parseOAuthSettings({ clientAddressHeader: 5 }, fail), /clientAddressHeader/);
  assert.throws(() => parseOAuthSettings([], fail), /oauth must be an object or false/);
  assert.throws(() => parseOAuthSettings({ issuer: "x" }, fail), /oauth.issuer is not a known key/);
  assert.throws(() => parseOAuthSettings({ trustedUserHeader: "bad header:" }, fail), /trustedUserHeader/);
  assert.throws(() => parseOAuthSettings({ registrationAllowlist: ["http://insecure.example/"] }, fail), /registrationAllowlist/);
  assert.throws(() => parseOAuthSettings({ registrationGroups: [""] }, fail), /registrationGroups/);
});

test("gateway.json carries the section through its own config errors", () => {
  const config = parseGatewayConfig({ tools: {}, oauth: { registrationGroups: ["admins"] } }, "/");
  assert.deepEqual(config.oauth.registrationGroups, ["admins"]);
  assert.equal(parseGatewayConfig({ tools: {} }, "/").oauth.enabled, true);
  assert.throws(() => parseGatewayConfig({ tools: {}, oauth: { nope: 1 } }, "/"), ConfigError);
});
