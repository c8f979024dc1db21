// One HTTP exchange with the gateway's streamable HTTP endpoint (MCP basic/transports
// "Streamable HTTP"), client side: a POST answered with JSON or an SSE stream, a GET
// stream, or a DELETE. Every JSON-RPC message received is handed to `onMessage`; failures
// come back as UpstreamError with a classified UpstreamFailure.
import { request as httpRequest, type Agent, type IncomingMessage } from "node:http";
import { request as httpsRequest, type Agent as HttpsAgent } from "node:https";
import { detailOf, groupsOf, UpstreamError, type UpstreamFailure } from "./failures.ts";
import { BodyError, readBody } from "../http/body.ts";
import { carriesMessage, readEvents, SseReadError } from "../http/sse-reader.ts";
import { isEventStream } from "../http/content-type.ts";

export interface ExchangeRequest {
  method: "POST" | "GET" | "DELETE";
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Connection pools; the one matching the URL's scheme is used. */
  agents?: Agents;
  /** Each JSON-RPC message of the answer, in order. */
  onMessage(value: unknown): void;
  /** The id of each SSE event that carried one, for resuming with Last-Event-ID. */
  onEventId?(id: string): void;
}

export interface Agents {
  http: Agent;
  https: HttpsAgent;
}

export interface ExchangeResult {
  status: number;
  /** The `Mcp-Session-Id` the answer carried. */
  sessionId: string | null;
  /** The `MCP-Protocol-Version` the answer carried. */
  protocolVersion: string | null;
}

const MAX_JSON_BYTES = 32 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;

function header(res: IncomingMessage, name: string): string | null {
  const value = res.headers[name];
  return typeof value === "string" ? value : null;
}

async function readText(res: IncomingMessage, limit: number): Promise<string> {
  try {
    return (await readBody(res, limit, { overflow: "destroy" })).toString("utf8");
  } catch (err) {
    if (err instanceof BodyError && err.code === "HUBMCP_BODY_TOO_LARGE") throw new UpstreamError({ kind: "broken", detail: "answer too large" });
    const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
    throw new UpstreamError({ kind: "broken", detail: cause?.code ?? "connection lost" });
  }
}

function failureFor(status: number, body: string, hadSession: boolean): UpstreamFailure {
  const detail = detailOf(body);
  if (status === 401) return { kind: "unauthorized" };
  if (status === 403) return { kind: "forbidden", groups: groupsOf(body) };
  if (status === 404) return hadSession ? { kind: "session-gone" } : { kind: "not-found", detail: detail || "HTTP 404" };
  if (status === 429 || status === 502 || status === 503 || status === 504) {
    return { kind: "unavailable", detail: detail ? `HTTP ${status}: ${detail}` : `HTTP ${status}` };
  }
  return { kind: "http", status, detail };
}

async function deliver(res: IncomingMessage, onMessage: (value: unknown) => void, onEventId?: (id: string) => void): Promise<void> {
  if (isEventStream(res)) {
    try {
      for await (const event of readEvents(res, MAX_JSON_BYTES)) {
        if (carriesMessage(event)) onMessage(JSON.parse(event.data));
        if (event.id) onEventId?.(event.id);
      }
    } catch (err) {
      if (err instanceof SyntaxError) throw new UpstreamError({ kind: "broken", detail: "an event was not JSON" });
      if (err instanceof SseReadError) throw new UpstreamError({ kind: "broken", detail: "an event was too large" });
      throw err;
    }
    return;
  }
  const text = await readText(res, MAX_JSON_BYTES);
  if (text.trim() === "") return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UpstreamError({ kind: "broken", detail: "the answer was not JSON" });
  }
  if (Array.isArray(value)) for (const item of value) onMessage(item);
  else onMessage(value);
}

/** Runs one exchange. Rejects with UpstreamError, or with the signal's reason when aborted. */
export function exchange(req: ExchangeRequest): Promise<ExchangeResult> {
  const url = new URL(req.url);
  const secure = url.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? req.agents?.https : req.agents?.http;
  const headers: Record<string, string> = { ...req.headers };
  if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body));
  return new Promise<ExchangeResult>((resolve, reject) => {
    let answered = false;
    const outgoing = send(url, { method: req.method, headers, signal: req.signal, agent }, (res) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const result: ExchangeResult = { status, sessionId: header(res, "mcp-session-id"), protocolVersion: header(res, "mcp-protocol-version") };
      if (status >= 400) {
        readText(res, MAX_ERROR_BYTES).then(
          (body) => reject(new UpstreamError(failureFor(status, body, "mcp-session-id" in req.headers))),
          () => reject(new UpstreamError(failureFor(status, "", "mcp-session-id" in req.headers))),
        );
        return;
      }
      deliver(res, req.onMessage, req.onEventId).then(
        () => resolve(result),
        (err: unknown) => {
          if (req.signal?.aborted) return reject(req.signal.reason);
          if (err instanceof UpstreamError) return reject(err);
          reject(new UpstreamError({ kind: "broken", detail: (err as NodeJS.ErrnoException).code ?? "connection lost" }));
        },
      );
    });
    outgoing.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      if (req.signal?.aborted) return reject(req.signal.reason);
      reject(new UpstreamError({ kind: "unavailable", detail: err.code ?? "network error" }));
    });
    outgoing.end(req.body);
  });
}
