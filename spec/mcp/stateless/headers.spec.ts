import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkParamHeaders,
  checkStandardHeaders,
  decodeHeaderValue,
  encodeHeaderValue,
  headerValue,
  nameFieldOf,
  paramHeadersOf,
  type HeaderBag,
} from "../../../lib/mcp/stateless/headers.ts";

const code = (check: ReturnType<typeof checkStandardHeaders>) => (check.ok ? 0 : check.error.code);

test("Mcp-Method must be present and equal the body method, case-sensitively, after trimming", () => {
  assert.equal(checkStandardHeaders({ "mcp-method": "tools/list" }, "tools/list", undefined).ok, true);
  assert.equal(checkStandardHeaders({ "mcp-method": " \ttools/list  " }, "tools/list", {}).ok, true);
  assert.equal(code(checkStandardHeaders({}, "tools/list", undefined)), -32020);
  assert.equal(code(checkStandardHeaders({ "mcp-method": "prompts/list" }, "tools/list", undefined)), -32020);
  assert.equal(code(checkStandardHeaders({ "mcp-method": "TOOLS/LIST" }, "tools/list", undefined)), -32020);
  assert.equal(code(checkStandardHeaders({ "mcp-method": ["tools/list", "tools/list"] }, "tools/list", undefined)), -32020);
  const refused = checkStandardHeaders({}, "tools/list", undefined);
  assert.equal(!refused.ok && refused.refusal, "header-mismatch");
});

test("Mcp-Name mirrors name, uri or taskId, plain or in the base64 sentinel form", () => {
  const call = { name: "greet", arguments: {} };
  assert.equal(checkStandardHeaders({ "mcp-method": "tools/call", "mcp-name": "  greet  " }, "tools/call", call).ok, true);
  assert.equal(code(checkStandardHeaders({ "mcp-method": "tools/call" }, "tools/call", call)), -32020);
  assert.equal(code(checkStandardHeaders({ "mcp-method": "tools/call", "mcp-name": "wrong_tool_name" }, "tools/call", call)), -32020);
  const uri = "file:///données/é.txt";
  const read = { "mcp-method": "resources/read", "mcp-name": encodeHeaderValue(uri) };
  assert.equal(checkStandardHeaders(read, "resources/read", { uri }).ok, true);
  assert.equal(code(checkStandardHeaders({ ...read, "mcp-name": "=?base64?!!?=" }, "resources/read", { uri })), -32020);
  assert.equal(checkStandardHeaders({ "mcp-method": "tasks/get", "mcp-name": "t-1" }, "tasks/get", { taskId: "t-1" }).ok, true);
  // A method without a name-shaped field needs no Mcp-Name.
  assert.equal(checkStandardHeaders({ "mcp-method": "server/discover" }, "server/discover", { name: "x" }).ok, true);
  assert.equal(nameFieldOf("prompts/get"), "name");
  assert.equal(nameFieldOf("tasks/cancel"), "taskId");
  assert.equal(nameFieldOf("tasks/update"), "taskId");
});

test("sentinel values decode strictly; anything unwrapped is literal", () => {
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8=?="), "Hello");
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8?="), null, "bad padding");
  assert.equal(decodeHeaderValue("=?base64?SGVs!!!bG8=?="), null, "bad alphabet");
  assert.equal(decodeHeaderValue("=?base64?/w==?="), null, "not UTF-8");
  assert.equal(decodeHeaderValue("SGVsbG8="), "SGVsbG8=");
  assert.equal(decodeHeaderValue("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
  assert.equal(decodeHeaderValue("=?BASE64?SGVsbG8=?="), "=?BASE64?SGVsbG8=?=");
  assert.equal(decodeHeaderValue("a\u0001b"), null, "control character");
  assert.equal(decodeHeaderValue("=?base64??="), "");
});

test("encoding wraps exactly the values a header cannot carry plainly", () => {
  assert.equal(encodeHeaderValue("us-west1"), "us-west1");
  assert.equal(encodeHeaderValue(42), "42");
  assert.equal(encodeHeaderValue(true), "true");
  assert.equal(encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
  assert.equal(encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
  assert.equal(encodeHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
  assert.equal(encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  for (const value of ["Hello, 世界", " padded ", "=?base64?literal?=", "", "plain"]) {
    assert.equal(decodeHeaderValue(encodeHeaderValue(value)), value);
  }
});

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
    nested: { type: "object", properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } } },
    query: { type: "string" },
  },
};

test("x-mcp-header annotations are found along properties chains only", () => {
  assert.deepEqual(paramHeadersOf(schema), [
    { header: "Region", path: ["region"], type: "string" },
    { header: "Count", path: ["count"], type: "integer" },
    { header: "Dry-Run", path: ["dry"], type: "boolean" },
    { header: "Tenant", path: ["nested", "tenant"], type: "string" },
  ]);
  assert.deepEqual(paramHeadersOf({ type: "object", items: { "x-mcp-header": "X" } }), []);
  assert.deepEqual(paramHeadersOf(undefined), []);
  assert.throws(() => paramHeadersOf({ properties: { a: { type: "number", "x-mcp-header": "A" } } }), /string, integer or boolean/);
  assert.throws(() => paramHeadersOf({ properties: { a: { type: "string", "x-mcp-header": "" } } }), /HTTP token/);
  assert.throws(() => paramHeadersOf({ properties: { a: { type: "string", "x-mcp-header": "A B" } } }), /HTTP token/);
  assert.throws(
    () => paramHeadersOf({ properties: { a: { type: "string", "x-mcp-header": "Dup" }, b: { type: "string", "x-mcp-header": "dup" } } }),
    /used twice/,
  );
});

test("Mcp-Param headers must accompany and match every annotated body value", () => {
  const declared = paramHeadersOf(schema);
  const args = { region: "Hello", count: 42, dry: false, nested: { tenant: "é" }, query: "q" };
  const headers: HeaderBag = {
    "mcp-param-region": "=?base64?SGVsbG8=?=",
    "mcp-param-count": "42.0",
    "mcp-param-dry-run": "false",
    "mcp-param-tenant": encodeHeaderValue("é"),
  };
  assert.equal(checkParamHeaders(headers, declared, args).ok, true);
  const refused = (h: HeaderBag, a: unknown = args) => {
    const check = checkParamHeaders(h, declared, a);
    return !check.ok && check.error.code === -32020 && check.refusal === "header-mismatch";
  };
  assert.ok(refused({ ...headers, "mcp-param-region": undefined }), "missing header, value in body");
  assert.ok(refused({ ...headers, "mcp-param-region": "=?base64?SGVsbG8?=" }), "bad padding");
  assert.ok(refused({ ...headers, "mcp-param-region": "Bye" }), "different value");
  assert.ok(refused({ ...headers, "mcp-param-count": "41" }), "different integer");
  assert.ok(refused({ ...headers, "mcp-param-count": " " }), "blank integer");
  assert.ok(refused({ ...headers, "mcp-param-dry-run": "False" }), "booleans are lower-case");
  assert.ok(refused({ ...headers, "mcp-param-region": ["Hello", "Hello"] }), "repeated header");
  assert.ok(refused(headers, { ...args, region: undefined }), "header without a body value");
  // Absent and null body values expect no header.
  assert.equal(checkParamHeaders({}, declared, { query: "q", region: null }).ok, true);
  assert.equal(checkParamHeaders({}, declared, undefined).ok, true);
  assert.equal(headerValue({ "mcp-name": "  x " }, "Mcp-Name"), "x");
  // A property named like an Object.prototype member has a value only when the body sends one.
  const odd = paramHeadersOf({ properties: { constructor: { type: "string", "x-mcp-header": "Ctor" } } });
  assert.equal(checkParamHeaders({}, odd, {}).ok, true);
  assert.equal(checkParamHeaders({ "mcp-param-ctor": "x" }, odd, { constructor: "x" }).ok, true);
});
