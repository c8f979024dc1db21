import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer, s, type Infer, type InferShape, type ToolContext } from "../../lib/index.ts";
import { compileSchema } from "../../lib/schema/index.ts";

/** True exactly when X and Y are the same type (not merely mutually assignable). */
type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const typeIs = <T extends true>(_proof?: T): void => undefined;

test("builders produce plain inline JSON Schema", () => {
  assert.deepEqual(s.string({ minLength: 1, maxLength: 9, pattern: "^a", format: "email" }).toJSON(), {
    type: "string",
    minLength: 1,
    maxLength: 9,
    pattern: "^a",
    format: "email",
  });
  assert.deepEqual(s.number({ minimum: 0, exclusiveMaximum: 5, multipleOf: 0.5, maximum: undefined }).toJSON(), {
    type: "number",
    minimum: 0,
    exclusiveMaximum: 5,
    multipleOf: 0.5,
  });
  assert.deepEqual(s.integer({ exclusiveMinimum: 0, maximum: 3 }).toJSON(), { type: "integer", exclusiveMinimum: 0, maximum: 3 });
  assert.deepEqual(s.boolean().title("Flag").describe("on or off").toJSON(), { type: "boolean", title: "Flag", description: "on or off" });
  assert.deepEqual(s.array(s.string(), { minItems: 1, uniqueItems: true }).toJSON(), {
    type: "array",
    items: { type: "string" },
    minItems: 1,
    uniqueItems: true,
  });
  assert.deepEqual(s.enum(["a", "b"]).toJSON(), { type: "string", enum: ["a", "b"] });
  assert.deepEqual(s.enum([1, 2]).toJSON(), { type: "integer", enum: [1, 2] });
  assert.deepEqual(s.enum([1.5, 2]).toJSON(), { type: "number", enum: [1.5, 2] });
  assert.deepEqual(s.enum([true]).toJSON(), { type: "boolean", enum: [true] });
  assert.deepEqual(s.enum(["a", 1, null]).toJSON(), { enum: ["a", 1, null] });
  assert.deepEqual(s.literal("x").toJSON(), { type: "string", const: "x" });
  assert.deepEqual(s.union([s.string(), s.integer()]).toJSON(), { anyOf: [{ type: "string" }, { type: "integer" }] });
  assert.deepEqual(s.nullable(s.number().describe("n")).toJSON(), { type: ["number", "null"], description: "n" });
  assert.deepEqual(s.nullable(s.enum(["a"])).toJSON(), { anyOf: [{ type: "string", enum: ["a"] }, { type: "null" }] });
  const point = s.object({ x: s.number(), y: s.number().default(0), label: s.string().optional() }, { additionalProperties: false });
  const json = s.object({ a: point, b: point.optional() }, { additionalProperties: s.boolean() }).toJSON();
  assert.deepEqual(json, {
    type: "object",
    properties: {
      a: {
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number", default: 0 }, label: { type: "string" } },
        required: ["x"],
        additionalProperties: false,
      },
      b: {
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number", default: 0 }, label: { type: "string" } },
        required: ["x"],
        additionalProperties: false,
      },
    },
    required: ["a"],
    additionalProperties: { type: "boolean" },
  });
  assert.ok(!JSON.stringify(json).includes("$ref"));
  assert.deepEqual(s.object({}).toJSON(), { type: "object", properties: {} });
});

test("nodes are immutable and defaults must match their schema", () => {
  const base = s.number({ minimum: 0 });
  const described = base.describe("x");
  assert.deepEqual(base.toJSON(), { type: "number", minimum: 0 });
  assert.equal(described.presence, "required");
  assert.equal(base.optional().presence, "optional");
  assert.equal(base.default(1).describe("d").presence, "defaulted");
  assert.throws(() => base.default(-1), { name: "TypeError", message: "default value does not match its schema (must be >= 0)" });
  const list = [1];
  const node = s.array(s.number()).default(list);
  list.push(2);
  assert.deepEqual(node.toJSON().default, [1]);
  assert.throws(() => s.object({ a: { type: "string" } as never }), /property "a" must be built with s/);
});

test("the value type is inferred", () => {
  const point = s.object({ x: s.number(), y: s.number().default(0), tag: s.string().optional() });
  typeIs<Equal<Infer<typeof point>, { x: number; y: number; tag?: string }>>();
  typeIs<Equal<Infer<ReturnType<typeof s.enum<["a", "b"]>>>, "a" | "b">>();
  const lit = s.literal(3);
  typeIs<Equal<Infer<typeof lit>, 3>>();
  const u = s.union([s.string(), s.nullable(s.integer())]);
  typeIs<Equal<Infer<typeof u>, string | number | null>>();
  const arr = s.array(s.object({ a: s.boolean() }));
  typeIs<Equal<Infer<typeof arr>, Array<{ a: boolean }>>>();
  typeIs<Equal<InferShape<{ a: typeof lit; b: ReturnType<typeof s.string> }>, { a: 3; b: string }>>();
  // A map: keys the value chooses, each value checked by one node (gateway.json's tools).
  const map = s.record(s.integer());
  typeIs<Equal<Infer<typeof map>, Record<string, number>>>();
  assert.deepEqual(map.toJSON(), { type: "object", additionalProperties: { type: "integer" } });
  assert.equal(compileSchema(map.toJSON())({ a: 1, b: 2 }).valid, true);
  assert.equal(compileSchema(map.toJSON())({ a: "1" }).valid, false);
  // @ts-expect-error a default must have the node's value type
  assert.throws(() => s.number().default("2"), TypeError);
  // @ts-expect-error an enum's type is its values
  typeIs<Equal<Infer<ReturnType<typeof s.enum<["a"]>>>, string>>();
});

test("a tool's `input` types its handler, generates inputSchema and fills defaults", async () => {
  const server = new McpServer("builder-test");
  server.tool(
    (args) => {
      typeIs<Equal<typeof args, { a: number; b: number }>>();
      return args.a + args.b;
    },
    { name: "add", input: { a: s.number().describe("first"), b: s.number().default(2) } },
  );
  server.tool(({ a, b }) => a + b, { name: "add2", input: { a: s.number(), b: s.number().default(2) } });
  server.asyncTool(async ({ text, times }) => text.repeat(times ?? 1), {
    name: "repeat",
    input: { text: s.string(), times: s.integer({ minimum: 1 }).optional() },
  });
  server.tool((args: { who: string }, ctx: ToolContext) => `${args.who} ${typeof ctx.signal}`, { name: "ctx_second", input: { who: s.string() } });
  server.tool((args, ctx) => (ctx ? `ctx for ${args.who}` : "none"), { name: "ctx_arrow", input: { who: s.string() } });
  server.tool((...args: unknown[]) => args.length, { name: "rest", input: { who: s.string() } });
  // @ts-expect-error a number has no toUpperCase
  server.tool(({ a }) => a.toUpperCase(), { name: "wrong", input: { a: s.number() } });
  server.tool((x: { a: string }) => x.a, { name: "alone", input: { a: s.string() } });

  const list = (await server.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" })) as unknown as { result: { tools: Array<Record<string, unknown>> } };
  const add = list.result.tools.find((t) => t.name === "add")!;
  assert.deepEqual(add.inputSchema, {
    type: "object",
    properties: { a: { type: "number", description: "first" }, b: { type: "number", default: 2 } },
    required: ["a"],
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (
      (await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } })) as unknown as {
        result: { content: Array<{ text: string }>; isError?: boolean };
      }
    ).result;
  assert.equal((await call("add", { a: 1 })).content[0]!.text, "3");
  assert.equal((await call("add2", { a: 1, b: 5 })).content[0]!.text, "6");
  assert.equal((await call("ctx_second", { who: "me" })).content[0]!.text, "me object");
  assert.equal((await call("ctx_arrow", { who: "me" })).content[0]!.text, "ctx for me");
  assert.equal((await call("alone", { a: "solo" })).content[0]!.text, "solo");
  assert.equal((await call("rest", { who: "me" })).content[0]!.text, "1");
  const bad = await call("add", { a: "x" });
  assert.equal(bad.isError, true);
  assert.equal(bad.content[0]!.text, "Invalid arguments: /a: must be number");

  assert.throws(() => server.tool(() => 1, { name: "both", input: { a: s.number() }, inputSchema: { type: "object" } }), /pass either input or inputSchema/);
  assert.throws(() => server.tool(() => 1, { name: "null_input", input: null as never }), /input must be an object/);
  assert.throws(() => server.tool(() => 1, { name: "raw_input", input: { a: { type: "string" } as never } }), /Tool raw_input: input: property "a"/);
});
