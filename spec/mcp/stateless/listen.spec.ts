import { test } from "node:test";
import assert from "node:assert/strict";
import { acknowledgement, filterToWire, parseListenFilter, tagged, wants, type ListenFilter } from "../../../lib/mcp/stateless/listen.ts";

const SUB = "io.modelcontextprotocol/subscriptionId";

const filterOf = (notifications: unknown): ListenFilter => {
  const parsed = parseListenFilter({ notifications });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.filter;
};

test("the filter is opt-in: only what the client asked for is sent", () => {
  const prompts = filterOf({ promptsListChanged: true });
  assert.equal(wants(prompts, "notifications/prompts/list_changed"), true);
  assert.equal(wants(prompts, "notifications/tools/list_changed"), false);
  assert.equal(wants(prompts, "notifications/resources/list_changed"), false);
  assert.equal(wants(prompts, "notifications/message"), false);
  for (const name of ["constructor", "__proto__", "toString"]) assert.equal(wants(prompts, name), false, name);
  const docs = filterOf({ resourceSubscriptions: ["file:///a"], toolsListChanged: false });
  assert.equal(wants(docs, "notifications/resources/updated", { uri: "file:///a" }), true);
  assert.equal(wants(docs, "notifications/resources/updated", { uri: "file:///b" }), false);
  assert.equal(wants(docs, "notifications/resources/updated"), false);
  assert.equal(wants(docs, "notifications/tools/list_changed"), false);
});

test("a malformed filter is -32602", () => {
  for (const params of [
    undefined,
    {},
    { notifications: [] },
    { notifications: { toolsListChanged: "yes" } },
    { notifications: { resourceSubscriptions: "file:///a" } },
    { notifications: { resourceSubscriptions: [1] } },
  ]) {
    const parsed = parseListenFilter(params);
    assert.equal(!parsed.ok && parsed.error.code, -32602, JSON.stringify(params));
  }
  assert.equal(parseListenFilter({ notifications: { resourceSubscriptions: Array(1001).fill("x") } }).ok, false);
});

test("the stream opens with an acknowledgement echoing the filter; every notification names the subscription", () => {
  const filter = filterOf({ toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["file:///a"] });
  assert.deepEqual(acknowledgement(7, filter), {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["file:///a"] }, _meta: { [SUB]: 7 } },
  });
  assert.deepEqual(filterToWire(filterOf({ promptsListChanged: true })), { promptsListChanged: true });
  assert.deepEqual(tagged("s1", "notifications/tools/list_changed"), {
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { [SUB]: "s1" } },
  });
  assert.deepEqual(tagged("s1", "notifications/resources/updated", { uri: "file:///a", _meta: { keep: 1 } }).params, {
    uri: "file:///a",
    _meta: { keep: 1, [SUB]: "s1" },
  });
});
