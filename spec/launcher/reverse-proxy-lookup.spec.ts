import { test } from "node:test";
import assert from "node:assert/strict";
import { compareVersions, externalProxyCommand, findExternalProxy, newestPackage } from "../../lib/launcher/reverse-proxy-lookup.ts";
import { fakeHubTools, tempDir } from "../helpers/launcher-fixtures.ts";

test("compareVersions orders numeric segments", () => {
  assert.ok(compareVersions("0.10", "0.9.1") > 0);
  assert.ok(compareVersions("1.0", "1.0.1") < 0);
  assert.equal(compareVersions("2.1", "2.1"), 0);
});

test("newestPackage picks the newest name-version: token", () => {
  const listing = "anaconda-7: wrwroxy-0.2: wrwroxy-0.10: wrwroxy-0.9.1:\nrappture-1.9: notwrwroxy-9:";
  assert.equal(newestPackage(listing, "wrwroxy"), "wrwroxy-0.10");
  assert.equal(newestPackage("rappture-1.9:", "wrwroxy"), null);
  assert.equal(newestPackage("wrwroxy-1.0 (no colon)", "wrwroxy"), null);
});

test("the external proxy command follows the hub convention", () => {
  assert.equal(
    externalProxyCommand("wrwroxy-0.10", { listenPort: 8000, forwardPort: 8001 }, false),
    "use -e wrwroxy-0.10 && exec wrwroxy --listenHost 0.0.0.0 --listenPort 8000 --forwardHost 127.0.0.1 --forwardPort 8001",
  );
  assert.match(externalProxyCommand("wrwroxy-1", { listenPort: 1, forwardPort: 2 }, true), / --stream-log$/);
  assert.throws(() => externalProxyCommand("wrwroxy-1; rm -rf ~", { listenPort: 1, forwardPort: 2 }, false), /unexpected characters/);
});

test("findExternalProxy asks `use` through a login shell", async (t) => {
  const dir = tempDir(t);
  const tools = fakeHubTools(dir);
  assert.equal(await findExternalProxy({ ...process.env, HOME: tools.home }), "wrwroxy-0.10");
  const none = fakeHubTools(tempDir(t), { wrwroxyVersions: [] });
  assert.equal(await findExternalProxy({ ...process.env, HOME: none.home }), null);
  // No `use` at all (an ordinary machine): null, not an error.
  assert.equal(await findExternalProxy({ ...process.env, HOME: tempDir(t) }), null);
});
