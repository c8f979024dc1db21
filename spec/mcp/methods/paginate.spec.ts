import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../../lib/index.ts";
import { encodeCursor, paginate } from "../../../lib/mcp/methods/paginate.ts";

test("pages follow nextCursor to the end; the last page has none", () => {
  const items = [1, 2, 3, 4, 5];
  const first = paginate(items, {}, 2, "items");
  assert.deepEqual(first.items, [1, 2]);
  const second = paginate(items, { cursor: first.nextCursor }, 2, "items");
  assert.deepEqual(second.items, [3, 4]);
  const last = paginate(items, { cursor: second.nextCursor }, 2, "items");
  assert.deepEqual(last, { items: [5] });
  assert.deepEqual(paginate([], {}, 2, "items"), { items: [] });
});

test("a cursor that is not ours is -32602", () => {
  for (const cursor of ["", "!!", 5, encodeCursor(99), Buffer.from("p2:1").toString("base64url"), "x".repeat(100)]) {
    assert.throws(
      () => paginate([1], { cursor }, 2, "items"),
      (err: { code: number }) => err.code === -32602,
      String(cursor),
    );
  }
});

test("every list method pages with the configured size", async () => {
  const server = new McpServer("paged", { pageSize: 1 });
  server.tool(() => 1, { name: "a", inputSchema: { type: "object" } }).tool(() => 2, { name: "b", inputSchema: { type: "object" } });
  server.resource("x://one", () => "1").resource("x://two", () => "2");
  server.resource("x://t/{a}", () => "").resource("x://u/{b}", () => "");
  server.prompt(() => "p", { name: "p1", arguments: [] }).prompt(() => "q", { name: "p2", arguments: [] });
  for (const [method, key] of [
    ["tools/list", "tools"],
    ["resources/list", "resources"],
    ["resources/templates/list", "resourceTemplates"],
    ["prompts/list", "prompts"],
  ] as const) {
    const first = (await server.handle({ jsonrpc: "2.0", id: 1, method })) as unknown as { result: Record<string, unknown[]> & { nextCursor: string } };
    assert.equal(first.result[key]!.length, 1, method);
    const second = (await server.handle({ jsonrpc: "2.0", id: 2, method, params: { cursor: first.result.nextCursor } })) as { result: Record<string, unknown> };
    assert.equal((second.result[key] as unknown[]).length, 1, method);
    assert.equal(second.result.nextCursor, undefined, method);
    const bad = (await server.handle({ jsonrpc: "2.0", id: 3, method, params: { cursor: "bogus" } })) as { error: { code: number } };
    assert.equal(bad.error.code, -32602, method);
  }
});
