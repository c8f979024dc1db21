import { test } from "node:test";
import assert from "node:assert/strict";
import { assignNames, prefixUri, unprefixUri } from "../../lib/bridge/naming.ts";

test("names are <label>_<name>; collisions keep the first and number the rest, in order", () => {
  const names = assignNames([
    { label: "a_b", name: "c" },
    { label: "a", name: "b_c" },
    { label: "a", name: "x" },
    { label: "a", name: "b_c_2" },
  ]);
  assert.deepEqual([...names.keys()], ["a_b_c", "a_b_c_2", "a_x", "a_b_c_2_2"]);
  assert.deepEqual(names.get("a_b_c_2"), { label: "a", name: "b_c" });
});

test("URIs keep their scheme and gain the label as the first segment; the original comes back exactly", () => {
  const labels = new Set(["mcpdemo", "lab"]);
  const cases: Array<[string, string]> = [
    ["ui://demo/plot", "ui://mcpdemo/demo/plot"],
    ["config://demo/settings", "config://mcpdemo/demo/settings"],
    ["file:///tmp/x", "file://mcpdemo//tmp/x"],
    ["urn:isbn:123", "urn:mcpdemo/isbn:123"],
    ["lab://runs/{id}", "lab://mcpdemo/runs/{id}"],
    ["{scheme}://x", "hub-bridge:mcpdemo/{scheme}://x"],
    ["http://127.0.0.1:8080/api/mcp/mcpdemo/ui://demo/plot", "http://mcpdemo/127.0.0.1:8080/api/mcp/mcpdemo/ui://demo/plot"],
  ];
  for (const [original, exposed] of cases) {
    assert.equal(prefixUri("mcpdemo", original), exposed);
    assert.deepEqual(unprefixUri(exposed, labels), { label: "mcpdemo", uri: original });
  }
  assert.equal(unprefixUri("ui://other/plot", labels), null);
  assert.equal(unprefixUri("ui://mcpdemo", labels), null);
  assert.equal(unprefixUri("no scheme", labels), null);
});
