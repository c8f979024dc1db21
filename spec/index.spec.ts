// Pins the public API: a new export, or a lost one, is a deliberate change made here too.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as hubmcp from "../lib/index.ts";
import type * as Types from "../lib/index.ts";

test("the package root exports exactly the public API", () => {
  assert.deepEqual(Object.keys(hubmcp).sort(), [
    "ClientRequestError",
    "ErrorCode",
    "JsonRpcError",
    "McpServer",
    "RegistrationError",
    "SchemaBuilder",
    "SchemaError",
    "SessionTable",
    "SlurmError",
    "ToolResult",
    "compileSchema",
    "content",
    "createProxyHandler",
    "isFlatElicitationSchema",
    "s",
    "slurm",
    "startReverseProxy",
  ]);
});

// Type-only exports vanish at run time; naming them here makes `npm test`'s type-check pin them.
type PublicTypes = [
  Types.McpServerOptions,
  Types.HandleOptions,
  Types.ListenOptions,
  Types.RunningServer,
  Types.ToolOptions,
  Types.ToolAnnotations,
  Types.ToolHandler,
  Types.ResourceOptions,
  Types.ResourceHandler,
  Types.ResourceTemplateOptions,
  Types.ResourceTemplateHandler,
  Types.PromptOptions,
  Types.PromptArgument,
  Types.PromptHandler,
  Types.PromptMessage,
  Types.Icon,
  Types.Completer,
  Types.CompletionContext,
  Types.ToolContext,
  Types.ElicitOptions,
  Types.ElicitUrlOptions,
  Types.SampleOptions,
  Types.ElicitResult,
  Types.UrlElicitResult,
  Types.SamplingRequest,
  Types.SamplingResult,
  Types.SamplingMessage,
  Types.Root,
  Types.ClientRequestFailure,
  Types.Logger,
  Types.ServerInfo,
  Types.CallToolResult,
  Types.ToolResultOptions,
  Types.ContentBlock,
  Types.TextContent,
  Types.ImageContent,
  Types.AudioContent,
  Types.EmbeddedResource,
  Types.ResourceLink,
  Types.ResourceContents,
  Types.Annotations,
  Types.JsonRpcMessage,
  Types.JsonRpcRequest,
  Types.JsonRpcNotification,
  Types.JsonRpcResponse,
  Types.JsonRpcSuccess,
  Types.JsonRpcFailure,
  Types.RequestId,
  Types.LogLevel,
  Types.SessionTableOptions,
  Types.SessionStore,
  Types.Session,
  Types.AsyncOptions,
  Types.JsonSchema,
  Types.SchemaObject,
  Types.ValidationError,
  Types.ValidationResult,
  Types.Validator,
  Types.CompileOptions,
  Types.Infer<Types.AnySchemaBuilder>,
  Types.Shape,
  Types.Presence,
  Types.StringOptions,
  Types.NumberOptions,
  Types.ArrayOptions,
  Types.ObjectOptions,
  Types.ReverseProxyOptions,
  Types.ProxyListenOptions,
  Types.ProxyHandler,
  Types.RunningProxy,
  Types.HandlerOptions,
  Types.RequestHandler,
  Types.Next,
  Types.StdioOptions,
  Types.StdioServer,
  Types.RegistrationErrorCode,
  Types.SlurmErrorCode,
  Types.SlurmRunOptions,
  Types.SlurmRunResult,
  Types.SlurmContext,
  Types.SlurmHandle,
];
export type { PublicTypes };

test("package.json maps the root to the built entry and has no runtime dependencies", async (t) => {
  const pkg = (await import("../package.json", { with: { type: "json" } })).default;
  assert.deepEqual(pkg.exports["."], { types: "./dist/lib/index.d.ts", default: "./dist/lib/index.js" });
  assert.deepEqual(pkg.bin, { start_mcp: "dist/cli/start_mcp.js", hub_gateway: "dist/cli/hub_gateway.js", hub_bridge: "dist/cli/hub_bridge.js" });
  assert.equal("dependencies" in pkg, false, "hubmcp ships with no runtime dependencies");
  t.diagnostic("dist is built by `prepare`; the shipping spec runs the built entry");
});

test("a tool's context names its server by type: ctx.server is an McpServer", () => {
  const typed: Types.ToolContext["server"] extends Types.McpServer ? true : false = true;
  const server = new hubmcp.McpServer("typed-context");
  server.tool((_args: Record<string, never>, ctx) => ctx.server.name, { inputSchema: { type: "object", properties: {} }, context: true, name: "who" });
  assert.equal(typed, true);
});
