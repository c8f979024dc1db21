import assert from "node:assert/strict";
import { test } from "node:test";
import { isPublicAddress } from "../../../lib/gateway/oauth/ip-ranges.ts";

test("only public unicast addresses may be fetched", () => {
  for (const a of ["93.184.215.14", "8.8.8.8", "2606:4700::1111"]) assert.equal(isPublicAddress(a), true, a);
  const refused = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "198.18.0.1",
    "192.0.0.1",
    "::1",
    "::",
    "fc00::1",
    "fd12::1",
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "64:ff9b::a00:1",
    "localhost",
  ];
  for (const a of refused) assert.equal(isPublicAddress(a), false, a);
  assert.equal(isPublicAddress("::ffff:8.8.8.8"), true);
});
