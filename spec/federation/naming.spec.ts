import { test } from "node:test";
import assert from "node:assert/strict";
import { assignNames, exposeUri, prefixUri, stripGatewayPrefix, unprefixUri } from "../../lib/federation/naming.ts";

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
  ];
  for (const [original, exposed] of cases) {
    assert.equal(prefixUri("mcpdemo", original), exposed);
    assert.deepEqual(unprefixUri(exposed, labels), { label: "mcpdemo", uri: original });
  }
  assert.equal(unprefixUri("ui://other/plot", labels), null);
  assert.equal(unprefixUri("ui://mcpdemo", labels), null);
  assert.equal(unprefixUri("no scheme", labels), null);
});

test("the gateway's resource prefix is dropped before the label goes in, only when a URI follows it", () => {
  const target = { label: "demo", tool: "mcpdemo" };
  assert.equal(exposeUri(target, "https://hub.example.org/gw/api/mcp/mcpdemo/ui://demo/plot"), "ui://demo/demo/plot");
  assert.equal(exposeUri(target, "ui://demo/plot"), "ui://demo/demo/plot");
  assert.equal(stripGatewayPrefix("https://hub/api/mcp/mcpdemo/files/a.txt", "mcpdemo"), "https://hub/api/mcp/mcpdemo/files/a.txt");
  assert.equal(stripGatewayPrefix("https://hub/api/mcp/other/ui://x", "mcpdemo"), "https://hub/api/mcp/other/ui://x");
  assert.equal(stripGatewayPrefix("ui://hub/api/mcp/mcpdemo/ui://x", "mcpdemo"), "ui://hub/api/mcp/mcpdemo/ui://x");
});
