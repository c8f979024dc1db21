// The gateway's span on a tool route: a child of the client's (`_meta.traceparent`, else the W3C
// headers), passed on to the tool server in both carriers, so its span is the gateway's child.
import type { IncomingHttpHeaders } from "node:http";
import { childContext, parentFromHeaders, traceFields, type TraceContext } from "../util/trace-context.ts";
import type { ParsedMessage } from "./rewrite.ts";

export interface TracedRequest {
  trace: TraceContext;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The gateway's span for one forwarded POST, and the headers and body that carry it on. */
export function continueTrace(headers: IncomingHttpHeaders, msg: ParsedMessage): TracedRequest {
  const trace = childContext(msg.traced?.parent ?? parentFromHeaders(headers));
  const fields = traceFields(trace);
  // The client's own trace headers never go on, malformed ones included.
  const { traceparent: _p, tracestate: _s, baggage: _b, ...rest } = headers;
  return { trace, headers: { ...rest, ...fields }, body: msg.traced ? msg.traced.with(fields) : msg.body };
}
