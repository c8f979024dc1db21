// `GET /openapi.json`: OpenAPI 3.1 for OpenAPI tooling; one path per tool callable
// without a session, plus the MCP endpoint itself.
import type { ServerCore } from "../mcp/core.ts";

// Said in the document itself, so a reader of the API wonders no longer where a tool went.
const UNLISTED =
  "Each tool is a POST /tools/{name} route, except tools that take a request context (ctx: logging, progress, elicitation): " +
  "they need an MCP session, are not listed here, and answer 409 on REST; call them over MCP (tools/call on the server's MCP endpoint).";

const jsonBody = (schema: unknown) => ({ content: { "application/json": { schema } } });
const errorSchema = { type: "object", properties: { error: { type: "string" } }, required: ["error"] };

function toolPath(name: string, description: string, inputSchema: unknown, outputSchema: unknown, async: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = { result: { type: "string", description: "The tool's result rendered as text" } };
  if (outputSchema) result.structuredContent = outputSchema;
  const responses: Record<string, unknown> = {
    "200": { description: "The tool ran", ...jsonBody({ type: "object", properties: result, required: ["result"] }) },
    "400": { description: "The body is not a JSON object, or the arguments fail the input schema", ...jsonBody(errorSchema) },
    "500": { description: "The tool failed", ...jsonBody(errorSchema) },
  };
  if (async) {
    responses["202"] = {
      description: "Still running after 25 s; poll with POST /tools/get_job_result",
      ...jsonBody({ type: "object", properties: { status: { const: "running" }, job_id: { type: "string" } } }),
    };
  }
  return {
    post: {
      operationId: name,
      summary: description || name,
      requestBody: { required: true, ...jsonBody(inputSchema) },
      responses,
    },
  };
}

/** `base` is the mount path the server is reached under; `servers` names it. */
export function openApiDocument(core: ServerCore, base = ""): Record<string, unknown> {
  const rpc = { type: "object", description: "A JSON-RPC 2.0 message or batch" };
  const paths: Record<string, unknown> = {
    "/mcp": {
      get: {
        operationId: "mcp_sse",
        summary: "Open the server-to-client event stream (first event: endpoint, when no session is named)",
        responses: { "200": { description: "Event stream", content: { "text/event-stream": { schema: { type: "string" } } } } },
      },
      post: {
        operationId: "mcp_message",
        summary: "Send a JSON-RPC request, notification or batch",
        requestBody: { required: true, ...jsonBody(rpc) },
        responses: {
          "200": { description: "JSON-RPC response", ...jsonBody(rpc) },
          "202": { description: "Notification accepted", ...jsonBody({ type: "object", properties: { status: { const: "accepted" } } }) },
        },
      },
    },
  };
  for (const tool of core.tools.values()) {
    if (tool.contextBearing && !tool.contextOptional) continue;
    paths[`/tools/${tool.name}`] = toolPath(tool.name, tool.description, tool.inputSchema, tool.outputSchema, tool.kind === "async");
  }
  return {
    openapi: "3.1.0",
    info: { title: core.info.name, version: core.info.version, description: UNLISTED },
    servers: [{ url: base || "/" }],
    paths,
  };
}
