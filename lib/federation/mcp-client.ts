// The one MCP client of hubmcp over streamable HTTP (MCP basic/transports "Streamable HTTP",
// client side), under the gateway (speaking to tool servers) and hub_bridge (speaking to the
// gateway): a POST answered with JSON or an SSE stream, a GET stream, a DELETE; the session
// an answer names; a reply that ends before its response resumed with Last-Event-ID; every
// answer read into JSON-RPC messages by the one SSE reader; failures classified once
// (./client-failure.ts). How a request reaches the endpoint is the caller's (McpHttp): the
// gateway sends on its pooled tool-server connections with the headers it vouches for,
// hub_bridge uses endpointHttp below. What to do on a failure (retry, re-initialise, which
// status to answer) is each caller's policy.
import { request as httpRequest, type Agent, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest, type Agent as HttpsAgent } from "node:https";
import type { Cancel } from "../proxy/forwarder.ts";
import { BodyError, readBody } from "../http/body.ts";
import { isEventStream } from "../http/content-type.ts";
import { carriesMessage, readEvents, SseReadError } from "../http/sse-reader.ts";
import { classify, JsonRpcError, type JsonRpcResponse, type Params, type RequestId } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import { failureForStatus, McpClientError } from "./client-failure.ts";

/** What a streamable-HTTP client accepts on a POST (the transport requires both). */
export const MCP_ACCEPT = "application/json, text/event-stream";
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;
/** Reconnections with Last-Event-ID for one reply before giving up on it. */
const MAX_RESUMES = 5;

/** One HTTP request to an MCP endpoint. */
export interface McpRequest {
  method: "POST" | "GET" | "DELETE";
  /** The endpoint's session id (Mcp-Session-Id), when there is one. */
  session?: string;
  /** MCP-Protocol-Version, Last-Event-ID, Content-Type, or what a gateway passes on. */
  headers: IncomingHttpHeaders;
  accept?: string;
  body?: Buffer;
}

/** Sends one request; resolves once the answer's headers arrive, rejects with the connection's error. */
export type McpHttp = (req: McpRequest, cancel: Cancel | AbortSignal) => Promise<IncomingMessage>;

export interface Agents {
  http: Agent;
  https: HttpsAgent;
}

/** Requests to one endpoint URL (http or https) on these pooled connections, each with `headers` (a bearer token). */
export function endpointHttp(endpoint: string, agents: Agents, headers: Record<string, string>): McpHttp {
  const url = new URL(endpoint);
  const secure = url.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? agents.https : agents.http;
  return (req, cancel) =>
    new Promise((resolve, reject) => {
      const out: OutgoingHttpHeaders = { ...headers, ...req.headers };
      if (req.accept) out.accept = req.accept;
      if (req.session) out["mcp-session-id"] = req.session;
      if (req.body) out["content-length"] = String(req.body.length);
      const signal = cancel instanceof AbortSignal ? cancel : undefined;
      const outgoing = send(url, { method: req.method, headers: out, agent, ...(signal ? { signal } : {}) });
      if (!signal) (cancel as Cancel).onCancel = () => outgoing.destroy(new Error("cancelled"));
      outgoing.on("response", resolve);
      outgoing.on("error", reject);
      outgoing.end(req.body);
    });
}

/** Posts one JSON-RPC message (or batch); the answer as it arrives. */
export function postMessage(
  http: McpHttp,
  session: string | undefined,
  message: unknown,
  headers: IncomingHttpHeaders,
  cancel: Cancel | AbortSignal,
): Promise<IncomingMessage> {
  return http(posting(session, message, headers), cancel);
}

export interface ReadOptions {
  /** Bounds a JSON body and each event; 64 MiB. */
  maxBytes?: number;
  /** The id of each SSE event that carried one, for resuming with Last-Event-ID. */
  onEventId?(id: string): void;
}

async function readText(answer: IncomingMessage, limit: number): Promise<string> {
  try {
    return (await readBody(answer, limit, { overflow: "destroy" })).toString("utf8");
  } catch (err) {
    if (err instanceof BodyError && err.code === "HUBMCP_BODY_TOO_LARGE")
      throw new McpClientError({ kind: "broken", detail: "answer too large", tooLarge: true });
    const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
    throw new McpClientError({ kind: "broken", detail: cause?.code ?? "connection lost" });
  }
}

/**
 * Hands each JSON-RPC message of an answer to `onMessage` in order: a JSON body's message
 * (each, for a batch), each `message` event of a stream. The next is read once `onMessage`
 * has settled, so a caller that cannot pass messages on pauses the stream (back-pressure).
 * An event that is not JSON is dropped, never relayed. Rejects with McpClientError (broken).
 */
export async function readMessages(answer: IncomingMessage, onMessage: (value: unknown) => void | Promise<void>, options: ReadOptions = {}): Promise<void> {
  const max = options.maxBytes ?? MAX_MESSAGE_BYTES;
  if (!isEventStream(answer)) {
    const text = await readText(answer, max);
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new McpClientError({ kind: "broken", detail: "the answer was not JSON" });
    }
    if (Array.isArray(value)) for (const item of value) await onMessage(item);
    else await onMessage(value);
    return;
  }
  try {
    for await (const event of readEvents(answer, max)) {
      if (carriesMessage(event)) {
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          value = undefined;
        }
        if (value !== undefined) await onMessage(value);
      }
      if (event.id) options.onEventId?.(event.id);
    }
  } catch (err) {
    if (err instanceof SseReadError) throw new McpClientError({ kind: "broken", detail: "an event was too large", tooLarge: true });
    throw new McpClientError({ kind: "broken", detail: (err as NodeJS.ErrnoException).code ?? "connection lost" }, err);
  }
}

export interface Exchanged {
  status: number;
  /** The Mcp-Session-Id the answer named. */
  session: string | undefined;
}

/**
 * One whole exchange: sends, classifies an error status (McpClientError, its body read for a
 * detail), hands every message of the answer to `onMessage`. A connection error before any
 * answer is `unavailable` (its cause kept); an abort rejects with the signal's reason.
 */
export async function exchange(
  http: McpHttp,
  req: McpRequest,
  signal: AbortSignal,
  onMessage: (value: unknown) => void | Promise<void>,
  options: ReadOptions = {},
): Promise<Exchanged> {
  let answer: IncomingMessage;
  try {
    answer = await http(req, signal);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw new McpClientError({ kind: "unavailable", detail: (err as NodeJS.ErrnoException).code ?? "network error" }, err);
  }
  const status = answer.statusCode ?? 0;
  if (status >= 400) {
    const body = await readText(answer, MAX_ERROR_BYTES).catch(() => "");
    throw new McpClientError(failureForStatus(status, body, req.session !== undefined));
  }
  try {
    await readMessages(answer, onMessage, options);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw err;
  }
  const minted = answer.headers["mcp-session-id"];
  return { status, session: typeof minted === "string" && minted !== "" ? minted : undefined };
}

/** One request's reply as it is read: its response, the last event id seen, and every other message handed on. */
export class Reply {
  response: JsonRpcResponse | null = null;
  lastEventId: string | null = null;
  constructor(
    readonly id: RequestId,
    readonly onOther: (message: Record<string, unknown>) => void = () => {},
  ) {}

  readonly onMessage = (value: unknown): void => {
    const incoming = classify(value);
    if (incoming.kind === "response" && incoming.message.id === this.id) this.response = incoming.message;
    else if (isRecord(value)) this.onOther(value);
  };

  readonly onEventId = (id: string): void => {
    this.lastEventId = id;
  };
}

/**
 * Picks a reply stream up again after its last event id until its response came (MCP
 * basic/transports "Resumability and Redelivery": servers close long replies on purpose,
 * proxies cut idle ones). A stream that breaks again is resumed again, up to a bound;
 * other failures reject with McpClientError.
 */
export async function resumeReply(
  http: McpHttp,
  session: string | undefined,
  headers: IncomingHttpHeaders,
  reply: Reply,
  signal: AbortSignal,
  maxBytes?: number,
): Promise<void> {
  for (let resumes = 0; !reply.response && reply.lastEventId !== null && resumes < MAX_RESUMES; resumes++) {
    const from = reply.lastEventId;
    const req: McpRequest = { method: "GET", session, headers: { ...headers, "last-event-id": from }, accept: "text/event-stream" };
    try {
      await exchange(http, req, signal, reply.onMessage, { maxBytes, onEventId: reply.onEventId });
    } catch (err) {
      if (!(err instanceof McpClientError) || err.failure.kind !== "broken") throw err;
    }
    if (reply.lastEventId === from && !reply.response) break;
  }
}

export interface Answered {
  result: Record<string, unknown>;
  /** The session the answer named (a new one for `initialize`), else the one the request named. */
  session: string | undefined;
}

export interface RequestOptions {
  /** MCP-Protocol-Version, or what a gateway passes on. */
  headers?: IncomingHttpHeaders;
  /** 30 s when not given. */
  signal?: AbortSignal;
  maxBytes?: number;
  /** The request's id; `hub-<method>` when not given. */
  id?: RequestId;
}

/** A POST of one JSON-RPC message. */
export function posting(session: string | undefined, message: unknown, headers: IncomingHttpHeaders): McpRequest {
  return {
    method: "POST",
    session,
    headers: { ...headers, "content-type": "application/json" },
    accept: MCP_ACCEPT,
    body: Buffer.from(JSON.stringify(message)),
  };
}

/**
 * Sends a request and answers its result, resuming its reply when it broke off. A JSON-RPC
 * error rejects with JsonRpcError; anything else that fails, with McpClientError.
 */
export async function request(http: McpHttp, session: string | undefined, method: string, params: Params, options: RequestOptions = {}): Promise<Answered> {
  const { headers = {}, signal = AbortSignal.timeout(30_000), maxBytes } = options;
  const reply = new Reply(options.id ?? `hub-${method}`);
  const read = { maxBytes, onEventId: reply.onEventId };
  let answered: Exchanged | undefined;
  try {
    answered = await exchange(http, posting(session, { jsonrpc: "2.0", id: reply.id, method, params }, headers), signal, reply.onMessage, read);
  } catch (err) {
    if (!(err instanceof McpClientError && err.failure.kind === "broken" && reply.lastEventId !== null)) throw err;
  }
  const named = answered?.session ?? session;
  await resumeReply(http, named, headers, reply, signal, maxBytes);
  const response = reply.response as JsonRpcResponse | null;
  if (!response) throw new McpClientError({ kind: "broken", detail: "the answer carried no response" });
  if ("error" in response) throw new JsonRpcError(response.error.code, response.error.message, response.error.data);
  return { result: response.result, session: named };
}

export interface Opened extends Answered {
  /** The protocol version the server chose, sent as MCP-Protocol-Version from then on. */
  protocolVersion: string | undefined;
}

/**
 * Opens an MCP session with these initialize params, as any client does: `initialize` (id 0),
 * then `notifications/initialized`. `session` is undefined for a server that keeps none.
 */
export async function initialize(http: McpHttp, params: Params, signal: AbortSignal = AbortSignal.timeout(30_000), maxBytes?: number): Promise<Opened> {
  const opened = await request(http, undefined, "initialize", params, { signal, maxBytes, id: 0 });
  const protocolVersion = typeof opened.result.protocolVersion === "string" ? opened.result.protocolVersion : undefined;
  const headers = protocolVersion ? { "mcp-protocol-version": protocolVersion } : {};
  await exchange(http, posting(opened.session, { jsonrpc: "2.0", method: "notifications/initialized" }, headers), signal, () => {});
  return { ...opened, protocolVersion };
}

/** Ends an MCP session (DELETE), best effort: a session already gone has nothing to end. */
export async function end(http: McpHttp, session: string | undefined, headers: IncomingHttpHeaders = {}, timeoutMs = 5_000): Promise<void> {
  if (!session) return;
  try {
    const answer = await http({ method: "DELETE", session, headers }, AbortSignal.timeout(timeoutMs));
    answer.resume();
  } catch {
    // The session is gone already.
  }
}
