// The hub connector's side of one tool session: JSON-RPC messages posted to the tool
// server (through ../forward.ts, so the same header rules apply as on per-tool routes),
// answers read as plain JSON or as an event stream, message by message. Also the
// one-off client the catalog uses: initialize, list, end the session.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { SseReader } from "../../http/sse-reader.ts";
import { isEventStream, readAll, send, upstreamFailure, type Cancel, type Upstream, type Vouched } from "../forward.ts";
import { GatewayError } from "../respond.ts";

const JSON_ACCEPT = "application/json, text/event-stream";
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Posts one JSON-RPC message to the tool session's MCP endpoint. */
export async function post(up: Upstream, session: string | undefined, message: unknown, headers: IncomingHttpHeaders, cancel: Cancel | AbortSignal, vouched?: Vouched): Promise<IncomingMessage> {
  const body = Buffer.from(JSON.stringify(message));
  try {
    return await send(up, { method: "POST", path: "mcp", headers: { ...headers, "content-type": "application/json" }, body, session, accept: JSON_ACCEPT, ...(vouched ? { vouched } : {}) }, cancel);
  } catch (err) {
    throw upstreamFailure(err);
  }
}

/**
 * Hands each JSON-RPC message of an answer to `onMessage` in order: one for a JSON body,
 * each `message` event of a stream (the next is read once `onMessage` has settled). Resolves
 * when the answer ends.
 */
export async function readMessages(answer: IncomingMessage, onMessage: (value: unknown) => void | Promise<void>): Promise<void> {
  if (!isEventStream(answer)) {
    const raw = await readAll(answer, MAX_JSON_BYTES);
    if (raw.length > 0) onMessage(JSON.parse(raw.toString("utf8")));
    return;
  }
  const decoder = new StringDecoder("utf8");
  const reader = new SseReader();
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    for (const event of reader.push(decoder.write(chunk))) {
      if (event.event !== "message" || event.data === "") continue;
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
}

/** Sends a request and answers its result; a JSON-RPC error or an HTTP failure throws. */
export async function request(
  up: Upstream,
  session: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: IncomingHttpHeaders = {},
): Promise<{ result: Record<string, unknown>; session: string | undefined }> {
  const id = `hub-${method}`;
  const answer = await post(up, session, { jsonrpc: "2.0", id, method, params }, headers, AbortSignal.timeout(30_000));
  if (answer.statusCode !== 200) {
    answer.resume();
    throw new GatewayError(502, "upstream_refused", "The tool server refused a request");
  }
  let result: Record<string, unknown> | undefined;
  await readMessages(answer, (value) => {
    const m = value as { id?: unknown; result?: unknown };
    if (m && m.id === id && typeof m.result === "object" && m.result !== null) result = m.result as Record<string, unknown>;
  });
  if (!result) throw new GatewayError(502, "upstream_refused", "The tool server answered with an error");
  const minted = answer.headers["mcp-session-id"];
  return { result, session: typeof minted === "string" && minted !== "" ? minted : session };
}

/** Opens an MCP session on the tool server with these initialize params. */
export async function initialize(up: Upstream, params: Record<string, unknown>): Promise<{ result: Record<string, unknown>; session: string | undefined }> {
  const opened = await request(up, undefined, "initialize", params);
  const version = typeof opened.result.protocolVersion === "string" ? opened.result.protocolVersion : undefined;
  const headers = version ? { "mcp-protocol-version": version } : {};
  const ack = await post(up, opened.session, { jsonrpc: "2.0", method: "notifications/initialized" }, headers, AbortSignal.timeout(30_000));
  ack.resume();
  return opened;
}

/** Ends an MCP session on the tool server, best effort. */
export async function end(up: Upstream, session: string | undefined): Promise<void> {
  if (!session) return;
  try {
    const answer = await send(up, { method: "DELETE", path: "mcp", headers: {}, session }, AbortSignal.timeout(5_000));
    answer.resume();
  } catch {
    // The tool session is gone already: nothing to end.
  }
}
