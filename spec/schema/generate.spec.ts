// Handlers are built with `new Function` because tsx strips comments from the source
// text of functions it compiles, and doc comments are part of what is read here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../lib/index.ts";
import { inputSchemaFromParams } from "../../lib/schema/index.ts";
import { jsAsyncTool, jsTool } from "../helpers/javascript-app.mjs";

const make = (src: string) => new Function(`return (${src});`)() as (...args: never[]) => unknown;

async function listed(server: McpServer): Promise<Map<string, Record<string, unknown>>> {
  const reply = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" })) as unknown as {
    result: { tools: Array<Record<string, unknown>> };
  };
  return new Map(reply.result.tools.map((t) => [t.name as string, t.inputSchema as Record<string, unknown>]));
}

async function call(server: McpServer, name: string, args: Record<string, unknown>): Promise<{ text: string; isError?: boolean }> {
  const reply = (await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } })) as unknown as {
    result: { content: Array<{ text: string }>; isError?: boolean };
  };
  return { text: reply.result.content[0]?.text ?? "", isError: reply.result.isError };
}

test("a destructured arrow: defaults give type and default, @param gives description", async () => {
  const server = new McpServer("gen");
  jsTool(
    server,
    make(`({a, b = 2, ratio = 0.5, big = 1.0, exp = 1e3, neg = -4, hex = 0xff, tags = [], name = 'x', tpl = \`t\`,
         flag = false, opts = {k: 1, 'q': [true],}, when = Date.now(), nothing = null, 'quoted-key': q = 1, renamed: r = "s", ...rest}) => {
      /** Sums things.
       * @param a the first value
       * @param {number} b - the second value
       */
      return a + b;
    }`),
    { name: "arrow" },
  );
  const schema = (await listed(server)).get("arrow");
  assert.deepEqual(schema, {
    type: "object",
    properties: {
      a: { description: "the first value" },
      b: { type: "number", default: 2, description: "the second value" },
      ratio: { type: "number", default: 0.5 },
      big: { type: "number", default: 1 },
      exp: { type: "number", default: 1000 },
      neg: { type: "number", default: -4 },
      hex: { type: "number", default: 255 },
      tags: { type: "array", default: [] },
      name: { type: "string", default: "x" },
      tpl: { type: "string", default: "t" },
      flag: { type: "boolean", default: false },
      opts: { type: "object", default: { k: 1, q: [true] } },
      when: {},
      nothing: { default: null },
      "quoted-key": { type: "number", default: 1 },
      renamed: { type: "string", default: "s" },
    },
    required: ["a"],
  });
  assert.equal((await call(server, "arrow", { a: 1 })).text, "3");
  // A whole-number default still takes reals: scientific inputs are 0.5 as often as 2.
  assert.equal((await call(server, "arrow", { a: 1, b: 1.5 })).text, "2.5");
  const bad = await call(server, "arrow", { a: 1, b: "two" });
  assert.deepEqual(bad, { text: "Invalid arguments: /b: must be number", isError: true });
});

test("async, positional, method and context-bearing handlers", async () => {
  const server = new McpServer("gen");
  jsAsyncTool(
    server,
    make(`async function scale(x, factor = 2.5, ctx) {
      /** @param x value to scale */
      return x * factor;
    }`),
  );
  jsTool(server, make(`function join(a, sep = ", ", b) { return a + sep + b; }`));
  jsTool(server, make(`({ shout(word, times = 1) { return word.toUpperCase().repeat(times); } }).shout`));
  jsTool(server, make(`async (value = 1e999, n = 1) => value`), { name: "inf" });
  jsTool(server, make(`({x} = {}, context) => typeof context`), { name: "with_ctx" });
  const schemas = await listed(server);
  assert.deepEqual(schemas.get("scale"), {
    type: "object",
    properties: { x: { description: "value to scale" }, factor: { type: "number", default: 2.5 } },
    required: ["x"],
  });
  assert.deepEqual(schemas.get("join"), {
    type: "object",
    properties: { a: {}, sep: { type: "string", default: ", " }, b: {} },
    required: ["a", "b"],
  });
  assert.deepEqual(schemas.get("shout"), {
    type: "object",
    properties: { word: {}, times: { type: "number", default: 1 } },
    required: ["word"],
  });
  assert.deepEqual(schemas.get("inf"), { type: "object", properties: { value: {}, n: { type: "number", default: 1 } } });
  assert.deepEqual(schemas.get("with_ctx"), { type: "object", properties: { x: {} }, required: ["x"] });
  assert.equal((await call(server, "join", { a: "x", b: "y" })).text, "x, y");
  assert.equal((await call(server, "shout", { word: "hi", times: 2 })).text, "HIHI");
  assert.equal((await call(server, "with_ctx", { x: 1 })).text, "object");
});

test("a bound function fails with a message asking for an explicit schema", () => {
  const server = new McpServer("gen");
  const bound = make(`function add(a, b) { return a + b; }`).bind(null);
  assert.throws(() => server.tool(bound, { name: "bound" }), {
    name: "TypeError",
    message: /^Tool bound: cannot read the handler's parameters \(.*bound.*\); pass an explicit inputSchema$/,
  });
  server.tool(bound, { name: "bound", inputSchema: { type: "object", properties: { a: {}, b: {} } } });
});

test("inputSchemaFromParams reads positional names and skips rest and array parameters", () => {
  assert.deepEqual(
    inputSchemaFromParams([{ kind: "name", name: "a" }, { kind: "rest", name: "more" }, { kind: "array" }, { kind: "name", name: "b", defaultSource: "'x'" }], {
      a: "first",
      toString: "",
    }),
    { type: "object", properties: { a: { description: "first" }, b: { type: "string", default: "x" } }, required: ["a"] },
  );
  assert.deepEqual(inputSchemaFromParams([], {}), { type: "object", properties: {} });
});
