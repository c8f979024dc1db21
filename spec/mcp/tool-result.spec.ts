// What a handler returns becomes its CallToolResult; content blocks stay blocks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { content, McpServer } from "../../lib/index.ts";
import { shapeToolResult } from "../../lib/mcp/tool-result.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

test("a content block, or a list of them, is sent as those blocks rather than as JSON text", async () => {
  const image = content.image(PNG, "image/png");
  assert.deepEqual(shapeToolResult(image), { content: [image], isError: false });
  const both = [content.text("A plot:"), image, content.link("file:///out.csv", "out.csv")];
  assert.deepEqual(shapeToolResult(both), { content: both, isError: false });
  // Look-alikes are data: a block missing its required field, a mixed list, an empty list.
  assert.equal(shapeToolResult({ type: "image", data: "x" }).structuredContent !== undefined, true);
  assert.equal(shapeToolResult([image, 1]).content[0]!.type, "text");
  assert.deepEqual(shapeToolResult([]), { content: [{ type: "text", text: "[]" }], isError: false });

  const server = new McpServer("blocks");
  server.tool(
    function plot() {
      return content.image(PNG, "image/png");
    },
    { inputSchema: { type: "object" } },
  );
  const reply = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "plot" } })) as any;
  assert.deepEqual(reply.result, { content: [{ type: "image", data: "iVBORw==", mimeType: "image/png" }], isError: false });
});
