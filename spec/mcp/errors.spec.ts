// Errors users can throw and test for: a handler's JsonRpcError reaches the client as it
// is (any other throw stays -32603), and registration errors carry a stable code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, JsonRpcError, McpServer, RegistrationError } from "../../lib/index.ts";

const call = (server: McpServer, method: string, params: Record<string, unknown>) => server.handle({ jsonrpc: "2.0", id: 1, method, params }) as Promise<any>;

test("resource-template, resource, prompt and completer handlers answer with their own JSON-RPC error", async () => {
  const server = new McpServer("errors");
  server.resource(
    "data://runs/{id}",
    ({ id }: { id: string }) => {
      if (id !== "1") throw new JsonRpcError(ErrorCode.ResourceNotFound, "No such run", { id });
      return "run 1";
    },
    {
      complete: {
        id: () => {
          throw new JsonRpcError(ErrorCode.InvalidParams, "Bad prefix");
        },
      },
    },
  );
  server.resource("data://broken", () => {
    throw new Error("disk on fire: /secret/path");
  });
  server.prompt(function review(kind: string) {
    if (kind !== "code") throw new JsonRpcError(ErrorCode.InvalidParams, "kind must be code");
    return "Review this";
  });
  assert.deepEqual((await call(server, "resources/read", { uri: "data://runs/2" })).error, { code: -32002, message: "No such run", data: { id: "2" } });
  assert.equal((await call(server, "resources/read", { uri: "data://runs/1" })).result.contents[0].text, "run 1");
  assert.deepEqual((await call(server, "resources/read", { uri: "data://broken" })).error, { code: -32603, message: "Resource handler failed" });
  assert.deepEqual((await call(server, "prompts/get", { name: "review", arguments: { kind: "poem" } })).error, { code: -32602, message: "kind must be code" });
  const completion = await call(server, "completion/complete", {
    ref: { type: "ref/resource", uri: "data://runs/{id}" },
    argument: { name: "id", value: "x" },
  });
  assert.deepEqual(completion.error, { code: -32602, message: "Bad prefix" });
});

test("a JsonRpcError from another copy of the library is recognised by its brand", async () => {
  const server = new McpServer("brand");
  const foreign = Object.assign(new Error("Gone"), { code: -32002, toBody: () => ({ code: -32002, message: "Gone" }) });
  Object.defineProperty(foreign, Symbol.for("hubmcp.jsonrpc-error"), { value: true });
  server.prompt(function p() {
    throw foreign;
  });
  assert.deepEqual((await call(server, "prompts/get", { name: "p" })).error, { code: -32002, message: "Gone" });
});

test("registration errors carry stable codes and stay TypeErrors", () => {
  const server = new McpServer("codes");
  const code = (c: string) => (err: unknown) => err instanceof RegistrationError && err instanceof TypeError && err.code === c;
  assert.throws(() => new McpServer(""), code("HUBMCP_INVALID_NAME"));
  server.tool(() => 1, { name: "one", inputSchema: { type: "object" } });
  assert.throws(() => server.tool(() => 1, { name: "one", inputSchema: { type: "object" } }), code("HUBMCP_DUPLICATE"));
  assert.throws(() => server.tool(() => 1, { name: "bad name!", inputSchema: { type: "object" } }), code("HUBMCP_INVALID_DEFINITION"));
  server.resource("a://x", () => "");
  assert.throws(() => server.resource("a://x", () => ""), code("HUBMCP_DUPLICATE"));
  server.asyncTool(() => 1, { name: "slow", inputSchema: { type: "object" } });
  assert.throws(() => server.removeTool("get_job_result"), code("HUBMCP_RESERVED_NAME"));
  const other = new McpServer("reserved");
  assert.throws(() => other.asyncTool(() => 1, { name: "get_job_result", inputSchema: { type: "object" } }), code("HUBMCP_RESERVED_NAME"));
});
