// Who tool session children run as and what they see: accounts from the system's user
// database, the safe default under root, a reduced environment, and the start-up warnings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import {
  canSwitchAccounts,
  childAccount,
  childEnv,
  DEFAULT_RUN_AS,
  identityWarnings,
  lookupAccount,
  PERSON,
  runAsFor,
} from "../../../lib/gateway/hosting/run-as.ts";
import { IS_ROOT, osUser } from "../../helpers/os-user.ts";

test("accounts come from getent; an unknown one is null", async () => {
  assert.deepEqual(await lookupAccount("root"), { name: "root", uid: 0, gid: 0, home: "/root" });
  assert.equal(await lookupAccount("no-such-account-x"), null);
  assert.equal(await lookupAccount("--help"), null, "a name is never an option");
  assert.equal(await lookupAccount("0"), null, "an all-digit name is not looked up as a uid (getent would answer root)");
});

test("children run as the configured account; under root, nobody by default", { skip: !IS_ROOT && "root's defaults" }, async () => {
  assert.equal(runAsFor(undefined), DEFAULT_RUN_AS);
  assert.equal(runAsFor("lab"), "lab");
  assert.equal(canSwitchAccounts(), true);
  assert.equal((await childAccount(undefined, "ada"))?.uid, 65534);
  assert.equal(await childAccount("root", "ada"), null, "the gateway's own account: no switch");
  await assert.rejects(childAccount("no-such-account-x", "ada"), /runAs: no account named no-such-account-x/);
});

test("a child's environment: base variables, the allowed ones, the account's home, then the session's", () => {
  const from = { PATH: "/bin", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC", HOME: "/root", SECRET_KEY: "k", LAB_LICENSE: "l", NODE_OPTIONS: "--require /x" };
  const account = { name: "tools", uid: 1, gid: 1, home: "/home/tools" };
  assert.deepEqual(childEnv(from, ["LAB_LICENSE"], account, { HUB_USER: "ada" }), {
    PATH: "/bin",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    TZ: "UTC",
    LAB_LICENSE: "l",
    HOME: "/home/tools",
    USER: "tools",
    LOGNAME: "tools",
    HUB_USER: "ada",
  });
  assert.deepEqual(childEnv(from, [], null, {}), { PATH: "/bin", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC", HOME: "/root" });
});

test("start-up warnings: tools on the gateway's own account, and runAs accounts that do not exist", { skip: !IS_ROOT && "root's defaults" }, async () => {
  const config = parseGatewayConfig(
    {
      tools: {
        safe: { revisions: { default: { app: "a.ts" } } },
        own: { runAs: "root", revisions: { default: { command: ["x"] } } },
        missing: { runAs: "no-such-account-x", revisions: { default: { app: "a.ts" } } },
        remote: { runAs: "root", revisions: { default: { url: "http://127.0.0.1:1/" } } },
      },
    },
    "/",
  );
  assert.deepEqual(await identityWarnings(config), [
    "runAs account no-such-account-x does not exist: tool sessions of missing will fail to start",
    `note: every person's tool sessions of safe (as nobody) run as one account, which keeps them from the gateway's data but not from each other; for tools that run people's own code set "runAs": "@person" (docs/gateway.md, "Deployment")`,
    `WARNING: tool sessions of own run as the gateway's own account and can read and change its data dir (keys, accounts, tokens); set "runAs" to an unprivileged account (docs/gateway.md, "Deployment")`,
  ]);
});

test("runAs @person: each person's own login account, never a system account or the gateway's", {
  skip: !IS_ROOT && "needs root to create accounts",
}, async (t) => {
  const ada = osUser(t, "hmp", "person");
  assert.equal((await childAccount(PERSON, ada.name))?.uid, ada.uid);
  await assert.rejects(childAccount(PERSON, "root"), /runAs @person: root is a system account or the gateway's own/);
  await assert.rejects(childAccount(PERSON, "daemon"), /system account/);
  await assert.rejects(childAccount(PERSON, "no-such-person-x"), /no account named no-such-person-x/);
  const config = parseGatewayConfig({ tools: { mine: { runAs: PERSON, revisions: { default: { app: "a.ts" } } } } }, "/");
  assert.deepEqual(await identityWarnings(config), []);
});
