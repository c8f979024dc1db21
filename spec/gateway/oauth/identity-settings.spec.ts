// The identity parts of the `oauth` section, the secret files they name, and the mapping of
// a provider's claims to an account: each refusal a clear ConfigError naming the key.
import assert from "node:assert/strict";
import { chmod, chown, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { IS_ROOT, osUser } from "../../helpers/os-user.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ConfigError } from "../../../lib/gateway/config/gateway-config.ts";
import { parseOAuthSettings } from "../../../lib/gateway/oauth/gateway-settings.ts";
import { identitySecrets } from "../../../lib/gateway/identity/oauth-for-gateway.ts";
import { addressMatcher } from "../../../lib/gateway/oauth/ip-ranges.ts";
import { accountName, mapGroups } from "../../../lib/gateway/oauth/person-claims.ts";
import { readSecretFile } from "../../../lib/gateway/identity/secret-file.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";

const fail = (key: string, problem: string): never => {
  throw new Error(`${key} ${problem}`);
};
const identity = { issuer: "https://id.example.org", clientId: "hub", clientSecretFile: "/etc/hub/oidc" };

test("oauth.identity: defaults, and each malformed key named", () => {
  const parsed = parseOAuthSettings({ identity }, fail).identity!;
  assert.deepEqual(parsed, {
    ...identity,
    label: "id.example.org",
    nameClaim: "preferred_username",
    groupsClaim: "groups",
    scopes: ["openid", "profile", "groups"],
    groupsPrefix: undefined,
    groupsMap: undefined,
    createAccounts: false,
    passwords: true,
  });
  const full = parseOAuthSettings(
    { identity: { ...identity, accounts: "create", passwords: false, groupsMap: { "cn=staff": "staff" }, label: "My Hub" } },
    fail,
  ).identity!;
  assert.equal(full.createAccounts, true);
  assert.equal(full.passwords, false);
  assert.equal(full.label, "My Hub");
  assert.deepEqual(parseOAuthSettings({ identity: { ...identity, scopes: ["openid", "email"] } }, fail).identity!.scopes, ["openid", "email"]);
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...identity, issuer: "http://id.example.org" }, /oauth\.identity\.issuer must be an https URL/],
    [{ ...identity, clientSecretFile: "relative" }, /clientSecretFile must be an absolute file path/],
    [{ ...identity, clientId: "" }, /clientId is missing/],
    [{ ...identity, accounts: "maybe" }, /accounts must be "create" or "existing"/],
    [{ ...identity, passwords: "no" }, /passwords must be true or false/],
    [{ ...identity, label: "" }, /label must be a short text/],
    [{ ...identity, groupsPrefix: "hub-", groupsMap: {} }, /exclude each other/],
    [{ ...identity, groupsMap: { a: "not a group!" } }, /groupsMap must map/],
    [{ ...identity, nameClaim: "bad claim" }, /nameClaim is missing or malformed/],
    [{ ...identity, extra: 1 }, /oauth\.identity\.extra is not a known key/],
    [{ ...identity, scopes: ["profile"] }, /scopes must be an array of scopes including "openid"/],
    [{ ...identity, scopes: "openid" }, /scopes must be an array/],
    ["text" as unknown as Record<string, unknown>, /oauth\.identity must be an object/],
  ];
  for (const [value, problem] of bad) assert.throws(() => parseOAuthSettings({ identity: value }, fail), problem);
});

test("oauth.frontEnd and oauth.assertionIssuers: parsed, and refused when malformed", () => {
  const frontEnd = { userHeader: "X-Remote-User", secretHeader: "X-Front-Secret", secretFile: "/etc/hub/front", from: ["127.0.0.1", "10.0.0.0/8", "::1"] };
  const parsed = parseOAuthSettings({ frontEnd: { ...frontEnd, groupsHeader: "X-Remote-Groups", accounts: "create" } }, fail).frontEnd!;
  assert.equal(parsed.userHeader, "x-remote-user");
  assert.equal(parsed.groupsHeader, "x-remote-groups");
  assert.equal(parsed.createAccounts, true);
  assert.throws(() => parseOAuthSettings({ frontEnd: { ...frontEnd, from: [] } }, fail), /from must list/);
  assert.throws(() => parseOAuthSettings({ frontEnd: { ...frontEnd, from: ["10.0.0.0/99"] } }, fail), /from must list/);
  assert.throws(() => parseOAuthSettings({ frontEnd: { ...frontEnd, userHeader: "bad header" } }, fail), /userHeader/);
  const issuers = parseOAuthSettings(
    { assertionIssuers: [{ issuer: "https://idp.example" }, { issuer: "https://b.example", jwksUri: "https://b.example/keys", nameClaim: "email" }] },
    fail,
  );
  assert.deepEqual(issuers.assertionIssuers, [
    { issuer: "https://idp.example", jwksUri: undefined, nameClaim: "sub" },
    { issuer: "https://b.example", jwksUri: "https://b.example/keys", nameClaim: "email" },
  ]);
  assert.throws(() => parseOAuthSettings({ assertionIssuers: {} }, fail), /assertionIssuers must be an array/);
  assert.throws(() => parseOAuthSettings({ assertionIssuers: [{ issuer: "ftp://x" }] }, fail), /assertionIssuers\[0\]\.issuer/);
});

test("addressMatcher: addresses and CIDR ranges, IPv4 on a dual-stack socket", () => {
  const inRange = addressMatcher(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  assert.equal(inRange("127.0.0.1"), true);
  assert.equal(inRange("::ffff:10.2.3.4"), true);
  assert.equal(inRange("fd12::1"), true);
  assert.equal(inRange("127.0.0.2"), false);
  assert.equal(inRange("::1"), false);
  assert.equal(inRange(undefined), false);
  assert.equal(inRange("not an address"), false);
  assert.throws(() => addressMatcher(["nonsense"]), TypeError);
});

test("secret files: owner-only regular files of our account, never a link, never echoed", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "hub-secret-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "secret");
  await writeFile(file, "s3cret-value-0123456789\n", { mode: 0o600 });
  assert.equal(readSecretFile(file, "k"), "s3cret-value-0123456789");
  await chmod(file, 0o640);
  assert.throws(
    () => readSecretFile(file, "oauth.x"),
    (err: unknown) => err instanceof ConfigError && /only its owner/.test(err.message) && !err.message.includes("s3cret"),
  );
  await chmod(file, 0o600);
  await symlink(file, join(dir, "link"));
  assert.throws(() => readSecretFile(join(dir, "link"), "k"), /symbolic link/);
  assert.throws(() => readSecretFile(dir, "k"), /regular file/);
  assert.throws(() => readSecretFile(join(dir, "missing"), "k"), /cannot be read/);
  const short = join(dir, "short");
  await writeFile(short, "abc", { mode: 0o600 });
  assert.throws(() => readSecretFile(short, "k"), /16 or more printable/);
  // Another local account owns the file (it could rewrite the secret): refused, even owner-only.
  if (IS_ROOT) {
    const other = osUser(t, "hms");
    const theirs = join(dir, "theirs");
    await writeFile(theirs, "s3cret-value-0123456789\n", { mode: 0o600 });
    await chown(theirs, other.uid, other.gid);
    assert.throws(() => readSecretFile(theirs, "k"), /owned by the account the gateway runs as/);
  }
  const settings = parseOAuthSettings({ identity: { ...identity, clientSecretFile: file } }, fail);
  assert.equal(identitySecrets(settings).identity?.clientSecret, "s3cret-value-0123456789");
  const broken = parseOAuthSettings({ frontEnd: { userHeader: "X-U", secretHeader: "X-S", secretFile: short, from: ["127.0.0.1"] } }, fail);
  assert.throws(() => identitySecrets(broken), /oauth\.frontEnd\.secretFile/);
});

test("claims to a person: the name rules of `user add`, groups by prefix, by map, or as they are", async () => {
  assert.equal(accountName({ preferred_username: "ada" }, "preferred_username"), "ada");
  assert.equal(accountName({ preferred_username: "../etc" }, "preferred_username"), undefined);
  assert.equal(accountName({ preferred_username: 7 }, "preferred_username"), undefined);
  assert.deepEqual(mapGroups(["staff", "bad name", 3, "staff"], {}), ["staff"]);
  assert.deepEqual(mapGroups(["hub-staff", "other", "hub-"], { groupsPrefix: "hub-" }), ["staff"]);
  assert.deepEqual(mapGroups(["cn=staff", "cn=x"], { groupsMap: { "cn=staff": "staff" } }), ["staff"]);
  assert.deepEqual(mapGroups("a, b;c", {}), ["a", "b", "c"]);
  assert.deepEqual(mapGroups(undefined, {}), []);
  assert.equal(
    mapGroups(
      Array.from({ length: 500 }, (_, i) => `g${i}`),
      {},
    ).length,
    200,
  );

  const accounts = new StoreAccountDirectory(new MemoryRecordStore());
  assert.equal(await accounts.provision("ada", ["a"], false), false, "existing-only: nobody made");
  assert.equal(await accounts.provision("ada", ["a"], true), true);
  assert.equal(await accounts.provision("ada", ["b"], false), true, "groups refreshed");
  assert.deepEqual(await accounts.groupsOf("ada"), ["b"]);
  // Two first sign-ins at once: one account, both succeed.
  const both = await Promise.all([accounts.provision("bob", ["x"], true), accounts.provision("bob", ["y"], true)]);
  assert.deepEqual(both, [true, true]);
  assert.equal((await accounts.list()).filter((a) => a.user === "bob").length, 1);
  await assert.rejects(accounts.provision("bad name", [], true), /user names/);
});
