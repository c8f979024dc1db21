// A feature's methods sit in the one method table from the start and answer once it is in use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { whenInUse } from "../../../lib/mcp/methods/gate.ts";
import type { Call } from "../../../lib/mcp/exchange.ts";
import { JsonRpcError } from "../../../lib/util/jsonrpc.ts";

const call = {} as Call;

test("until the feature is in use, a wrapped method answers as before it and a new one as unknown", () => {
  let inUse = false;
  const table = whenInUse({ "tools/call": () => ({ via: "feature" }), "tasks/get": () => ({ task: 1 }) }, () => inUse, {
    "tools/call": () => ({ via: "base" }),
  });
  assert.deepEqual(table["tools/call"]!({}, call), { via: "base" });
  assert.throws(
    () => table["tasks/get"]!({}, call),
    (err: unknown) => err instanceof JsonRpcError && err.code === -32601 && /tasks\/get/.test(err.message),
  );
  inUse = true;
  assert.deepEqual(table["tools/call"]!({}, call), { via: "feature" });
  assert.deepEqual(table["tasks/get"]!({}, call), { task: 1 });
});
