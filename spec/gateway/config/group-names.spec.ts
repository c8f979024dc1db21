// A group's name is decided once (lib/gateway/contracts/names.ts): every gateway.json key
// that lists groups accepts exactly the names a sign-in's groups may have, so a rule changed
// in one place cannot leave an operator able to write a group nobody can be in, or unable
// to write one people are in. A tool's name likewise (gateway.json and `hub_gateway init`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { isGroupName, isToolName } from "../../../lib/gateway/contracts/names.ts";
import { parseOAuthSettings } from "../../../lib/gateway/oauth/gateway-settings.ts";

const NAMES = ["staff", "hub-admins", "a.b_c-9", "9lives", "x".repeat(128), "x".repeat(129), "", "-lead", ".hidden", "bad name", "a@b", "ü", "a/b"];
const identity = { issuer: "https://id.example.org", clientId: "hub", clientSecretFile: "/etc/hub/oidc" };

const accepts = (parse: () => unknown): boolean => {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
};

const KEYS: Record<string, (name: string) => unknown> = {
  "admin.groups": (name) => parseGatewayConfig({ tools: {}, admin: { groups: [name] } }, "/"),
  "tools.<tool>.groups": (name) => parseGatewayConfig({ tools: { sim: { groups: [name], revisions: { default: { url: "http://127.0.0.1:1/" } } } } }, "/"),
  "oauth.identity.groupsMap": (name) =>
    parseOAuthSettings({ identity: { ...identity, groupsMap: { claim: name } } }, (key, problem) => {
      throw new Error(`${key} ${problem}`);
    }),
};

test("every key listing groups accepts exactly the names isGroupName does", () => {
  assert.ok(
    accepts(() => KEYS["tools.<tool>.groups"]!("staff")),
    "the tool fixture itself is valid",
  );
  for (const [key, parse] of Object.entries(KEYS)) {
    for (const name of NAMES)
      assert.equal(
        accepts(() => parse(name)),
        isGroupName(name),
        `${key}: ${JSON.stringify(name)}`,
      );
  }
});

test("gateway.json's tool names are exactly those isToolName accepts", () => {
  const names = ["sim", "Sim_2", "a-b", "9", "x".repeat(64), "x".repeat(65), "", "_sim", "a.b", "a b", "ü", "a/b"];
  for (const name of names) {
    const parse = () => parseGatewayConfig({ tools: { [name]: { revisions: { default: { url: "http://127.0.0.1:1/" } } } } }, "/");
    assert.equal(accepts(parse), isToolName(name), JSON.stringify(name));
  }
});
