// The tool server's span for one JSON-RPC request, named and labelled as the OpenTelemetry
// semantic conventions for MCP ask: `{mcp.method.name} {target}`, the tool or prompt name as
// target, never a resource URI (high cardinality) and never arguments or results.
import { SpanKind, type AttributeValue, type OpenSpan } from "../telemetry/span.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import type { Call } from "./exchange.ts";

/** The attributes and name both hops share: the tool server here, the gateway for its own span. */
export function mcpSpanAttributes(
  method: string,
  params: unknown,
  requestId: string | number | null,
): { name: string; attributes: Record<string, AttributeValue> } {
  const attributes: Record<string, AttributeValue> = { "mcp.method.name": method };
  if (requestId !== null) attributes["jsonrpc.request.id"] = String(requestId);
  const target = typeof params === "object" && params !== null ? (params as { name?: unknown }).name : undefined;
  const named = typeof target === "string" && target.length <= 128 ? target : undefined;
  if (method === "tools/call") {
    attributes["gen_ai.operation.name"] = "execute_tool";
    if (named) attributes["gen_ai.tool.name"] = named;
  } else if (method === "prompts/get" && named) {
    attributes["gen_ai.prompt.name"] = named;
  }
  const useName = named && (method === "tools/call" || method === "prompts/get");
  return { name: useName ? `${method} ${named}` : method, attributes };
}

export function serverSpan(tracer: Tracer, call: Call, method: string, params: unknown): OpenSpan {
  const { name, attributes } = mcpSpanAttributes(method, params, call.id);
  const session = call.session;
  if (session) {
    attributes["mcp.session.id"] = session.id;
    if (session.protocolVersion) attributes["mcp.protocol.version"] = session.protocolVersion;
  }
  return tracer.start(name, SpanKind.server, call.trace, attributes);
}
