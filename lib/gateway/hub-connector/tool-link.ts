// The hub connector's side of one tool session: the gateway's MCP client (../upstream-mcp.ts,
// through ../forward.ts, so the same header rules apply as on per-tool routes) pointed at the
// tool session's server. Also the one-off client the catalog uses: initialize, list, end.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Cancel, Upstream, Vouched } from "../forward.ts";
import * as mcp from "../upstream-mcp.ts";

export { readMessages } from "../upstream-mcp.ts";

/** Posts one JSON-RPC message to the tool session's MCP endpoint. */
export function post(
  up: Upstream,
  session: string | undefined,
  message: unknown,
  headers: IncomingHttpHeaders,
  cancel: Cancel | AbortSignal,
  vouched?: Vouched,
): Promise<IncomingMessage> {
  return mcp.postMessage(up, session, message, headers, cancel, vouched);
}

/** Sends a request and answers its result; a JSON-RPC error or an HTTP failure throws. */
export function request(
  up: Upstream,
  session: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: IncomingHttpHeaders = {},
): Promise<mcp.Answered> {
  return mcp.request(up, session, method, params, headers);
}

/** Opens an MCP session on the tool server with these initialize params. */
export function initialize(up: Upstream, params: Record<string, unknown>): Promise<mcp.Answered> {
  return mcp.initialize(up, params);
}

/** Ends an MCP session on the tool server, best effort. */
export function end(up: Upstream, session: string | undefined): Promise<void> {
  return mcp.end(up, session);
}
