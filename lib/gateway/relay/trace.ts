// The gateway's span on a tool route (and on `/mcp`, for a request it routes to a tool): a child of the client's (`_meta.traceparent`, else the W3C
// headers), passed on to the tool server in both carriers, so its span is the gateway's child.
import type { IncomingHttpHeaders } from "node:http";
import { parentFromHeaders, parentFromMeta, traceFields, type TraceContext } from "../../util/trace-context.ts";
import { isRecord } from "../../util/guards.ts";
import { mcpSpanAttributes } from "../../mcp/span.ts";
import { SpanKind, type OpenSpan } from "../../telemetry/span.ts";
import type { Tracer } from "../../telemetry/tracer.ts";
import type { ParsedMessage } from "./rewrite.ts";
import { GatewayError } from "../contracts/respond.ts";

export interface TracedRequest {
  trace: TraceContext;
  /** The header fields that carry it on, in place of the client's (`Outgoing.trace`). */
  fields: Readonly<Record<string, string>>;
  body: Buffer;
}

/** The gateway's span context for one forwarded POST, and the header fields and body that carry it on. */
export function continueTrace(tracer: Tracer, headers: IncomingHttpHeaders, msg: ParsedMessage): TracedRequest {
  const trace = tracer.context(msg.traced?.parent ?? parentFromHeaders(headers));
  const fields = traceFields(trace);
  return { trace, fields, body: msg.traced ? msg.traced.with(fields) : msg.body };
}

/**
 * The same for a request the connector (`/mcp`) routes to a tool: its span, named as on the
 * per-tool route, and the params and headers that carry it on (the client's trace keys
 * replaced by the gateway's, malformed or not).
 */
export function connectorTrace(
  tracer: Tracer,
  method: string,
  id: string | number,
  params: Record<string, unknown>,
  headers: IncomingHttpHeaders,
): { span: OpenSpan; params: Record<string, unknown>; headers: IncomingHttpHeaders } {
  const trace = tracer.context(parentFromMeta(params) ?? parentFromHeaders(headers));
  const named = mcpSpanAttributes(method, params, id);
  const fields = traceFields(trace);
  const { traceparent: _p, tracestate: _s, baggage: _b, ...meta } = isRecord(params._meta) ? params._meta : {};
  const { traceparent: _hp, tracestate: _hs, baggage: _hb, ...rest } = headers;
  return {
    span: tracer.start(named.name, SpanKind.server, trace, named.attributes),
    params: { ...params, _meta: { ...meta, ...fields } },
    headers: { ...rest, ...fields },
  };
}

/** The same for a REST call to a tool (`POST …/tools/{name}`): a `tools/call` span, carried on in the W3C headers (`Outgoing.trace`). */
export function restTrace(tracer: Tracer, tool: string, headers: IncomingHttpHeaders): { span: OpenSpan; fields: Readonly<Record<string, string>> } {
  const trace = tracer.context(parentFromHeaders(headers));
  const named = mcpSpanAttributes("tools/call", { name: tool }, null);
  return { span: tracer.start(named.name, SpanKind.server, trace, named.attributes), fields: traceFields(trace) };
}

/**
 * The span of one JSON-RPC POST through the gateway (a server span: the client called it). It
 * takes `msg.span`'s attributes as they are: a copy made by spreading and then given one more
 * key (the session's) cost the traced hop three microseconds a call in V8 (issue 39).
 */
export function gatewaySpan(tracer: Tracer, trace: TraceContext, msg: ParsedMessage): OpenSpan {
  const named = msg.span ?? { name: "POST", attributes: {} };
  return tracer.start(named.name, SpanKind.server, trace, named.attributes);
}

/** `error.type` for a request the gateway refused or could not forward: its stable code, never its message. */
export function errorTypeOf(err: unknown): string {
  return err instanceof GatewayError ? err.error : "_OTHER";
}
