// Declared parameter types (attached by start_mcp's compile step) drive the input schema:
// types over default-derived ones, `?` means not required, the context is found by the one
// name/position rule (a ToolContext parameter it misses is refused), and doc text fills
// descriptions the body comment leaves out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";
import { PARAM_TYPES, readParamTypes, type ParamTypes } from "../../lib/registry/param-types.ts";

function typed<F extends Function>(fn: F, types: ParamTypes): F {
  Object.defineProperty(fn, PARAM_TYPES, { value: types });
  return fn;
}

async function rpc(server: McpServer, method: string, params: object = {}): Promise<Record<string, unknown>> {
  const reply = (await server.handle({ jsonrpc: "2.0", id: 1, method, params })) as unknown as { result: Record<string, unknown> };
  return reply.result;
}

test("declared types become the schema and are enforced", async () => {
  const server = new McpServer("typed");
  const divide = typed(
    function divide(a: number, b: number, c: unknown) {
      return a / b + (c === undefined ? 0 : 0);
    },
    {
      properties: { a: { type: "number" }, b: { type: "number" }, c: { type: "string", enum: ["x", "y"] } },
      optional: ["c"],
      description: "Divide a by b.",
      params: { a: "the dividend" },
    },
  );
  server.tool(divide);
  const scale = typed(
    function scale(value: number, factor = 2, ctx: { info(m: string): void }) {
      ctx.info("scaling");
      return value * factor;
    },
    { properties: { value: { type: "number" }, factor: { type: "number" } }, optional: [], context: 2 },
  );
  server.tool(scale);
  const misnamed = typed(
    function misnamed(value: number, c: unknown) {
      return [value, c];
    },
    { properties: { value: { type: "number" } }, optional: [], context: 1 },
  );
  assert.throws(() => server.tool(misnamed), {
    code: "HUBMCP_INVALID_DEFINITION",
    message: /typed ToolContext.*call it ctx or context, or pass context: true/,
  });
  server.tool(misnamed, { context: true });
  const tools = (await rpc(server, "tools/list")).tools as { name: string; description?: string; inputSchema: unknown }[];
  assert.deepEqual(tools, [
    {
      name: "divide",
      description: "Divide a by b.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number", description: "the dividend" }, b: { type: "number" }, c: { type: "string", enum: ["x", "y"] } },
        required: ["a", "b"],
      },
    },
    { name: "scale", inputSchema: { type: "object", properties: { value: { type: "number" }, factor: { type: "number", default: 2 } }, required: ["value"] } },
    { name: "misnamed", inputSchema: { type: "object", properties: { value: { type: "number" } }, required: ["value"] } },
  ]);
  const refused = await rpc(server, "tools/call", { name: "divide", arguments: { a: "six", b: 2 } });
  assert.deepEqual(refused, { content: [{ type: "text", text: "Invalid arguments: /a: must be number" }], isError: true });
  const scaled = await rpc(server, "tools/call", { name: "scale", arguments: { value: 3, factor: 0.5 } });
  assert.deepEqual(scaled.content, [{ type: "text", text: "1.5" }]);
});

test("malformed attachments are ignored", () => {
  const f = (): void => {};
  assert.equal(readParamTypes(f), null);
  for (const bad of [1, null, { properties: [], optional: [] }, { properties: {}, optional: "x" }, { properties: { a: 1 }, optional: [] }]) {
    const g = (): void => {};
    Object.defineProperty(g, PARAM_TYPES, { value: bad });
    assert.equal(readParamTypes(g), null);
  }
});
