// The public API of hubmcp. Everything not exported here is internal.
export { McpServer, type McpServerOptions, type HandleOptions, type ToolHandler, type ToolContext } from "./server.ts";
export type { HandlerOptions, ListenOptions, RunningServer } from "./http/listen.ts";
export type { RequestHandler, Next } from "./http/types.ts";
export type { StdioOptions, StdioServer } from "./stdio/serve.ts";
export { JsonRpcError, ErrorCode } from "./util/jsonrpc.ts";
export { RegistrationError, type RegistrationErrorCode } from "./util/errors.ts";
export type { ToolOptions, ToolAnnotations } from "./registry/tools.ts";
export type { ResourceOptions, ResourceHandler } from "./registry/resources.ts";
export type { ResourceTemplateOptions, ResourceTemplateHandler } from "./registry/resource-templates.ts";
export type { PromptOptions, PromptArgument, PromptHandler, PromptMessage } from "./registry/prompts.ts";
export type { SkillOptions, SkillEntry } from "./registry/skills.ts";
export type { Icon, Completer, CompletionContext } from "./registry/common.ts";
export type { ElicitOptions, ElicitUrlOptions, SampleOptions, ListRootsOptions } from "./mcp/context.ts";
export type { CacheHint, CachePolicy } from "./mcp/stateless/results.ts";
export type { ElicitResult, UrlElicitResult, SamplingRequest, SamplingResult, SamplingMessage, Root } from "./mcp/client-features.ts";
export { ClientRequestError, type ClientRequestFailure } from "./mcp/client-requests.ts";
export type { ServerInfo } from "./mcp/core.ts";
export type { Logger } from "./util/logger.ts";
export type { TraceContext } from "./util/trace-context.ts";
export { ToolResult, type CallToolResult, type ToolResultOptions } from "./mcp/tool-result.ts";
export {
  content,
  type ContentBlock,
  type TextContent,
  type ImageContent,
  type AudioContent,
  type EmbeddedResource,
  type ResourceLink,
  type ResourceContents,
  type Annotations,
} from "./mcp/content.ts";
export type {
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcSuccess,
  JsonRpcFailure,
  RequestId,
} from "./util/jsonrpc.ts";
export type { LogLevel, Session } from "./session/session.ts";
// The `sessionStore` option takes any SessionStore; wrapping a SessionTable is the way to build one.
export { SessionTable, type SessionStore, type SessionTableOptions } from "./session/session-table.ts";
export type { AsyncOptions } from "./tasks/store.ts";
export * as slurm from "./slurm/api.ts";
export { SlurmError, type SlurmErrorCode } from "./slurm/error.ts";
export type { SlurmRunOptions, SlurmRunResult, SlurmContext, SlurmHandle } from "./slurm/run.ts";
export { compileSchema, SchemaError, isFlatElicitationSchema, s, SchemaBuilder } from "./schema/index.ts";
export type { JsonSchema, SchemaObject, ValidationError, ValidationResult, Validator, CompileOptions } from "./schema/index.ts";
export type { Infer, InferShape, Shape, Presence, AnySchemaBuilder, StringOptions, NumberOptions, ArrayOptions, ObjectOptions } from "./schema/index.ts";
export {
  createProxyHandler,
  startReverseProxy,
  type ReverseProxyOptions,
  type ProxyListenOptions,
  type ProxyHandler,
  type RunningProxy,
} from "./proxy/reverse-proxy.ts";
