// The gateway as an MCP client of a tool server, over streamable HTTP and nothing else:
// a session is opened with `initialize` + `notifications/initialized` and named by the
// `Mcp-Session-Id` of the answer, a request's result is read from a JSON body or from the
// `message` events of a stream, a session is ended with DELETE. Whatever runs behind a
// revision (start_mcp, the official SDK's server, anyone's) is spoken to this way only.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { carriesMessage, readEvents } from "../http/sse-reader.ts";
import { LATEST_VERSION } from "../mcp/versions.ts";
import { isEventStream, readAll, send, upstreamFailure, type Cancel, type Upstream, type Vouched } from "./forward.ts";
import { GatewayError } from "./respond.ts";

/** What a streamable-HTTP client accepts (the transport requires both). */
export const MCP_ACCEPT = "application/json, text/event-stream";
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Posts one JSON-RPC message to the tool server's MCP endpoint. */
export async function postMessage(
  upstream: Upstream,
  session: string | undefined,
  message: unknown,
  headers: IncomingHttpHeaders,
  cancel: Cancel | AbortSignal,
  vouched?: Vouched,
): Promise<IncomingMessage> {
  const body = Buffer.from(JSON.stringify(message));
  try {
    return await send(
      upstream,
      {
        method: "POST",
        path: "mcp",
        headers: { ...headers, "content-type": "application/json" },
        body,
        session,
        accept: MCP_ACCEPT,
        ...(vouched ? { vouched } : {}),
      },
      cancel,
    );
  } catch (err) {
    throw upstreamFailure(err);
  }
}

/**
 * Hands each JSON-RPC message of an answer to `onMessage` in order: one for a JSON body,
 * each `message` event of a stream (the next is read once `onMessage` has settled). Resolves
 * when the answer ends; `maxBytes` bounds a JSON body and each event.
 */
export async function readMessages(answer: IncomingMessage, onMessage: (value: unknown) => void | Promise<void>, maxBytes = MAX_JSON_BYTES): Promise<void> {
  if (!isEventStream(answer)) {
    const raw = await readAll(answer, maxBytes);
    if (raw.length > 0) await onMessage(JSON.parse(raw.toString("utf8")));
    return;
  }
  for await (const event of readEvents(answer, maxBytes)) {
    if (!carriesMessage(event)) continue;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      continue; // A malformed event from the tool is dropped, never relayed.
    }
    // Awaited, so a client that reads nothing pauses this stream (back-pressure) instead of filling memory.
    await onMessage(value);
  }
}

export interface Answered {
  result: Record<string, unknown>;
  /** The session the answer named (a new one for `initialize`), else the one the request named. */
  session: string | undefined;
}

/** Sends a request and answers its result; a JSON-RPC error or an HTTP failure throws `upstream_refused`. */
export async function request(
  upstream: Upstream,
  session: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: IncomingHttpHeaders = {},
  signal: AbortSignal = AbortSignal.timeout(30_000),
  maxBytes = MAX_JSON_BYTES,
): Promise<Answered> {
  const id = `hub-${method}`;
  const answer = await postMessage(upstream, session, { jsonrpc: "2.0", id, method, params }, headers, signal);
  if (answer.statusCode !== 200) {
    answer.resume();
    throw new GatewayError("upstream_refused", "The tool server refused a request");
  }
  let result: Record<string, unknown> | undefined;
  try {
    await readMessages(
      answer,
      (value) => {
        const m = value as { id?: unknown; result?: unknown };
        if (m && m.id === id && typeof m.result === "object" && m.result !== null) result = m.result as Record<string, unknown>;
      },
      maxBytes,
    );
  } catch (err) {
    answer.destroy();
    if (err instanceof GatewayError) throw err;
    throw new GatewayError("upstream_refused", "The tool server's answer could not be read");
  }
  if (!result) throw new GatewayError("upstream_refused", "The tool server answered with an error");
  const minted = answer.headers["mcp-session-id"];
  return { result, session: typeof minted === "string" && minted !== "" ? minted : session };
}

/**
 * Opens an MCP session with these initialize params, as any client does. `session` is
 * undefined for a server that keeps none (it named no Mcp-Session-Id).
 */
export async function initialize(upstream: Upstream, params: Record<string, unknown>, signal?: AbortSignal, maxBytes?: number): Promise<Answered> {
  const opened = await request(upstream, undefined, "initialize", params, {}, signal, maxBytes);
  const version = typeof opened.result.protocolVersion === "string" ? opened.result.protocolVersion : undefined;
  const headers = version ? { "mcp-protocol-version": version } : {};
  const ack = await postMessage(
    upstream,
    opened.session,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    headers,
    signal ?? AbortSignal.timeout(30_000),
  );
  ack.resume();
  return opened;
}

/** What the gateway declares when it opens a session no client asked for (bootstrap routes). */
export const GATEWAY_CLIENT = { protocolVersion: LATEST_VERSION, capabilities: {}, clientInfo: { name: "hubmcp-gateway", version: "1" } } as const;

/** Ends an MCP session on the tool server, best effort. */
export async function end(upstream: Upstream, session: string | undefined): Promise<void> {
  if (!session) return;
  try {
    const answer = await send(upstream, { method: "DELETE", path: "mcp", headers: {}, session }, AbortSignal.timeout(5_000));
    answer.resume();
  } catch {
    // The tool session is gone already: nothing to end.
  }
}
