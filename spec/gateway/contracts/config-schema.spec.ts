// gateway.json checked against its declaration: each problem is one line naming the key path
// (array items as `[i]`), with the problem the declaration gives, never the value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { DEFAULT_LIMITS, parseLimits, type GatewayLimits } from "../../../lib/gateway/config/limits-settings.ts";

const SECRET = "s3cr3t-value";
const app = { revisions: { default: { app: "a.ts" } } };

test("each problem names its key path, with the declaration's problem, never the value", () => {
  const cases: Array<[unknown, string]> = [
    [null, "(top level) must be a JSON object"],
    [{}, "tools must be an object of named tools"],
    [{ tools: {}, [SECRET]: 1 }, `${SECRET} is not a known key`],
    [{ tools: { t: { revisions: { default: { command: ["ok", ""] } } } } }, "tools.t.revisions.default.command must be a non-empty array of strings"],
    [{ tools: { t: app }, admin: { groups: ["staff", `${SECRET} !`] } }, "admin.groups must be an array of group names"],
    [{ tools: {}, oauth: 3 }, "oauth must be an object or false"],
    [{ tools: {}, oauth: null }, "oauth must be an object or false"],
    [{ tools: {}, oauth: [] }, "oauth must be an object or false"],
    [{ tools: {}, oauth: true }, "oauth must be an object or false"],
    [{ tools: {}, oauth: { identity: 5 } }, "oauth.identity must be an object"],
    [
      { tools: {}, oauth: { identity: { issuer: "https://id.example/", clientId: "c", clientSecretFile: "/s", groupsMap: { a: `${SECRET} !` } } } },
      "oauth.identity.groupsMap must map claim values to group names",
    ],
    [
      { tools: {}, oauth: { assertionIssuers: [{ issuer: "https://a.example/" }, { issuer: `ftp://${SECRET}` }] } },
      "oauth.assertionIssuers[1].issuer must be an https URL",
    ],
    [{ tools: {}, oauth: { assertionIssuers: [{ issuer: "https://a.example/", extra: SECRET }] } }, "oauth.assertionIssuers[0].extra is not a known key"],
    [{ tools: {}, oauth: { assertionIssuers: [SECRET] } }, "oauth.assertionIssuers[0] must be an object"],
    [{ tools: {}, limits: { idleMinutes: SECRET } }, "limits.idleMinutes must be a positive number"],
    [{ tools: {}, limits: { lookupCacheSeconds: 61 } }, "limits.lookupCacheSeconds must be a number, 0 or more, at most 60"],
    [{ tools: {}, store: 5 }, "store must be a postgres://user@host:port/database URL"],
  ];
  for (const [value, message] of cases) {
    assert.throws(
      () => parseGatewayConfig(value, "/"),
      (err: unknown) => err instanceof ConfigError && err.message === message && err.code === "HUBMCP_BAD_CONFIG",
      message,
    );
  }
});

test("the limits come from their declarations: defaults, units and whole counts", () => {
  const fail = (key: string, text: string): never => {
    throw new ConfigError(key, text);
  };
  assert.equal(DEFAULT_LIMITS.idleTimeoutMs, 30 * 60_000);
  assert.equal(DEFAULT_LIMITS.lookupCacheMs, 1000);
  assert.equal(DEFAULT_LIMITS.proxyCookieMs, 8 * 3_600_000);
  const set: GatewayLimits = parseLimits({ idleMinutes: 0.5, sessionsPerUser: 2.7, lookupCacheSeconds: 0 }, fail);
  assert.deepEqual([set.idleTimeoutMs, set.sessionsPerUser, set.lookupCacheMs, set.maxConnections], [30_000, 2, 0, 1000]);
  assert.throws(() => parseLimits({ upstreamRequestsPerUser: 129 }, fail), {
    message: "limits.upstreamRequestsPerUser must be a positive number, at most 128",
  });
  assert.throws(() => parseLimits({ sessionsTotal: 0 }, fail), { message: "limits.sessionsTotal must be a positive number" });
});
