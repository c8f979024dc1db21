// The gateway as an MCP client of a tool server: the one streamable-HTTP client
// (../../federation/mcp-client.ts) sending on the gateway's pooled connections (./forward.ts's
// `send`, with the headers the gateway vouches for), its failures answered as the gateway's
// own (502/504). Whatever runs behind a revision (start_mcp, the official SDK's server,
// anyone's) is spoken to this way only.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import * as client from "../../federation/mcp-client.ts";
import { McpClientError } from "../../federation/client-failure.ts";
import { LATEST_VERSION } from "../../mcp/versions.ts";
import { JsonRpcError } from "../../util/jsonrpc.ts";
import { send, upstreamFailure, type Cancel, type Upstream, type Vouched } from "./forward.ts";
import { GatewayError } from "../contracts/respond.ts";

export { MCP_ACCEPT, type Answered } from "../../federation/mcp-client.ts";

/** The client's way to a tool server's MCP endpoint, on the gateway's connections. */
export function toolServer(upstream: Upstream, vouched?: Vouched): client.McpHttp {
  return (req, cancel) =>
    send(
      upstream,
      { method: req.method, path: "mcp", headers: req.headers, body: req.body, session: req.session, accept: req.accept, ...(vouched ? { vouched } : {}) },
      cancel,
    );
}

/** A failure of the client as the gateway answers it: unreachable 502, too slow 504, anything else refused. */
function answered(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof JsonRpcError) return new GatewayError("upstream_refused", "The tool server answered with an error");
  // The connection's own error (or an abort): unreachable, or too slow.
  if (!(err instanceof McpClientError)) return upstreamFailure(err);
  const { failure } = err;
  if (failure.kind === "unavailable" && err.cause !== undefined) return upstreamFailure(err.cause);
  if (failure.kind === "broken" && failure.tooLarge) return new GatewayError("upstream_too_large", "The tool server's answer is too large");
  if (failure.kind === "broken") return new GatewayError("upstream_refused", "The tool server's answer could not be read");
  return new GatewayError("upstream_refused", "The tool server refused a request");
}

/** Posts one JSON-RPC message to the tool server's MCP endpoint. */
export async function postMessage(
  upstream: Upstream,
  session: string | undefined,
  message: unknown,
  headers: IncomingHttpHeaders,
  cancel: Cancel | AbortSignal,
  vouched?: Vouched,
): Promise<IncomingMessage> {
  try {
    return await client.postMessage(toolServer(upstream, vouched), session, message, headers, cancel);
  } catch (err) {
    throw upstreamFailure(err);
  }
}

/** Each JSON-RPC message of an answer, in order (../../federation/mcp-client.ts); a broken answer rejects as the gateway answers it. */
export async function readMessages(answer: IncomingMessage, onMessage: (value: unknown) => void | Promise<void>, maxBytes?: number): Promise<void> {
  try {
    await client.readMessages(answer, onMessage, { maxBytes });
  } catch (err) {
    throw answered(err);
  }
}

/** Sends a request and answers its result; a JSON-RPC error or an HTTP failure throws `upstream_refused` (502/504 when unreachable). */
export async function request(
  upstream: Upstream,
  session: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: IncomingHttpHeaders = {},
  signal?: AbortSignal,
  maxBytes?: number,
): Promise<client.Answered> {
  try {
    return await client.request(toolServer(upstream), session, method, params, { headers, signal, maxBytes });
  } catch (err) {
    throw answered(err);
  }
}

/**
 * Opens an MCP session with these initialize params, as any client does. `session` is
 * undefined for a server that keeps none (it named no Mcp-Session-Id).
 */
export async function initialize(upstream: Upstream, params: Record<string, unknown>, signal?: AbortSignal, maxBytes?: number): Promise<client.Answered> {
  try {
    const { result, session } = await client.initialize(toolServer(upstream), params, signal, maxBytes);
    return { result, session };
  } catch (err) {
    throw answered(err);
  }
}

/** What the gateway declares when it opens a session no client asked for (bootstrap routes). */
export const GATEWAY_CLIENT = { protocolVersion: LATEST_VERSION, capabilities: {}, clientInfo: { name: "hubmcp-gateway", version: "1" } } as const;

/** Ends an MCP session on the tool server, best effort. */
export function end(upstream: Upstream, session: string | undefined): Promise<void> {
  return client.end(toolServer(upstream), session);
}
