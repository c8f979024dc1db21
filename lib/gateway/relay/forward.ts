// One exchange with a tool server: the request goes out with the client's end-to-end
// headers (never its bearer token or cookies), and the answer comes back either as it
// is, byte for byte, or, for the few methods the gateway rewrites, parsed and re-sent.
// Event streams are relayed unbuffered with a comment at once and keepalives between events.
import { Agent, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { endToEnd, vouchedRequestHeaders, writeHeadFrom, type HeaderList, type Vouched } from "../../proxy/headers.ts";
import { forward, pipeAnswer, upstreamFailure as failureOf, upstreamTarget, type Cancel } from "../../proxy/forwarder.ts";
import { UPSTREAM_SOCKETS } from "../config/limits-settings.ts";
import { CORS, GatewayError } from "../contracts/respond.ts";
import { BodyError, readBody } from "../../http/body.ts";
import { formatComment, SSE_HEADERS } from "../../http/sse.ts";
import { isEventStream } from "../../http/content-type.ts";

export type { Cancel, Vouched };

export const KEEPALIVE_MS = 15_000;
const HEADERS_TIMEOUT_MS = 300_000;
// Accept-Encoding too: the gateway relays bodies as they come and may rewrite some, so it
// asks the tool server for identity encoding and never compresses streams.
const DROPPED_REQUEST = new Set(["authorization", "cookie", "host", "content-length", "mcp-session-id", "origin", "referer", "accept-encoding"]);
/** The same, for a request whose Accept the gateway sets. */
const DROPPED_REQUEST_AND_ACCEPT = new Set([...DROPPED_REQUEST, "accept"]);
/** The client's trace context, for a request that carries the gateway's instead (`Outgoing.trace`), malformed or not. */
const TRACE_HEADERS = ["traceparent", "tracestate", "baggage"];
const DROPPED_TRACED = new Set([...DROPPED_REQUEST, ...TRACE_HEADERS]);
const DROPPED_TRACED_AND_ACCEPT = new Set([...DROPPED_REQUEST_AND_ACCEPT, ...TRACE_HEADERS]);
const DROPPED_RESPONSE = new Set(["mcp-session-id", "set-cookie"]);
/** A rewritten answer has its own length. */
const DROPPED_FROM_REWRITTEN = new Set([...DROPPED_RESPONSE, "content-length"]);
/** Answers up to this size are read whole and sent in one write; larger ones stream through. */
const SMALL_ANSWER_BYTES = 64 * 1024;

/** The pooled connections of one running gateway to its tool servers: made at start, destroyed at close. */
export function upstreamAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: UPSTREAM_SOCKETS });
}

export interface Upstream {
  /** Tool server base URL with a trailing slash. */
  url: string;
  cookie?: string;
  /** The running gateway's agent (see upstreamAgent). */
  agent: Agent;
}

export interface Outgoing {
  method: string;
  /** Path below the base URL, without a leading slash, query included. */
  path: string;
  headers: IncomingHttpHeaders;
  body?: Buffer;
  /** The tool server's own session id to send, if any. */
  session?: string;
  /** Replaces the client's Accept (to get plain JSON for answers the gateway rewrites). */
  accept?: string;
  /** What the gateway vouches for, in place of any X-Forwarded-* / Forwarded the client sent. */
  vouched?: Vouched;
  /** The gateway's trace context headers (../relay/trace.ts), in place of any the client sent. */
  trace?: Readonly<Record<string, string>>;
}

/** Resolves when the response headers arrive; rejects with the connection error. */
export function send(upstream: Upstream, out: Outgoing, cancel: AbortSignal | Cancel): Promise<IncomingMessage> {
  const target = upstreamTarget(upstream.url);
  // A client could otherwise claim to be someone else to a tool server that trusts its proxy.
  const drop = out.trace ? (out.accept ? DROPPED_TRACED_AND_ACCEPT : DROPPED_TRACED) : out.accept ? DROPPED_REQUEST_AND_ACCEPT : DROPPED_REQUEST;
  const headers = vouchedRequestHeaders(out.headers, drop, out.vouched);
  for (const name in out.trace) headers.push(name, out.trace[name]!);
  if (out.accept) headers.push("accept", out.accept);
  if (out.session) headers.push("mcp-session-id", out.session);
  if (upstream.cookie) headers.push("cookie", upstream.cookie);
  if (out.body) headers.push("content-length", String(out.body.length));
  headers.push("host", target.host);
  return forward(
    { agent: upstream.agent, target, method: out.method, path: `/${out.path}`, headers, body: out.body, headersTimeoutMs: HEADERS_TIMEOUT_MS },
    cancel,
  );
}

/** Why an upstream could not be reached, as the client's answer. */
export function upstreamFailure(err: unknown): GatewayError {
  const failure = failureOf(err);
  return new GatewayError(failure.code, failure.status === 504 ? "The tool server did not answer in time" : "The tool server is not reachable");
}

export { isEventStream };

const CORS_LIST: readonly string[] = Object.entries(CORS).flat();
const STREAM_HEADERS: readonly string[] = Object.entries(SSE_HEADERS).flat();
/** An upstream's own values for what openStream sets, or a length, would break the relayed stream. */
const DROPPED_FROM_STREAM = new Set([...DROPPED_RESPONSE, "content-length", ...STREAM_HEADERS.filter((_, i) => i % 2 === 0)]);

/** The gateway's CORS headers and `extra`, for an answer the gateway writes itself. */
export function corsWith(extra: Record<string, string>): HeaderList {
  const headers = [...CORS_LIST];
  for (const name in extra) headers.push(name, extra[name]!);
  return headers;
}

/** The answer's end-to-end headers, the gateway's CORS in place of the tool server's, and `extra`. */
function answerHeaders(answer: IncomingMessage, extra: Record<string, string>, drop = DROPPED_RESPONSE): HeaderList {
  const headers = endToEnd(answer.headers, drop, "access-control-");
  headers.push(...CORS_LIST);
  for (const name in extra) headers.push(name, extra[name]!);
  return headers;
}

/** Starts an event stream to the client (`headers` without a length or type): unbuffered, uncompressed, a comment at once. */
export function openStream(res: ServerResponse, status: number, headers: HeaderList): void {
  writeHeadFrom(res, status, [...headers, ...STREAM_HEADERS]);
  res.write(formatComment("stream open"));
}

/**
 * Passes the answer through. Streams get keepalive comments, inserted only between events
 * (after a blank line), so an event is never split. `onTick` runs with each keepalive.
 * A client gone away is the caller's Cancel (see exchange): it destroys the upstream exchange.
 */
export async function relay(
  res: ServerResponse,
  answer: IncomingMessage,
  extra: Record<string, string>,
  onTick: () => void = () => {},
  keepaliveMs = KEEPALIVE_MS,
): Promise<void> {
  const status = answer.statusCode ?? 502;
  if (!isEventStream(answer)) {
    const headers = answerHeaders(answer, extra);
    if (Number(answer.headers["content-length"]) <= SMALL_ANSWER_BYTES) {
      // Headers and body in one write, without a pipe's listeners.
      let body: Buffer;
      try {
        body = await readAll(answer, SMALL_ANSWER_BYTES);
      } catch {
        res.destroy();
        return;
      }
      if (!res.destroyed) {
        writeHeadFrom(res, status, headers);
        res.end(body);
      }
      return;
    }
    writeHeadFrom(res, status, headers);
    return pipeAnswer(answer, res);
  }
  openStream(res, status, answerHeaders(answer, extra, DROPPED_FROM_STREAM));
  let atBoundary = true;
  const timer = setInterval(() => {
    onTick();
    if (atBoundary) res.write(formatComment("keepalive"));
  }, keepaliveMs);
  timer.unref();
  try {
    // Back-pressure: a client that reads nothing stops the tool server, not fills the gateway.
    await pipeAnswer(answer, res, (chunk) => {
      const text = chunk.toString("latin1");
      atBoundary = text.endsWith("\n\n") || text.endsWith("\r\n\r\n");
    });
  } finally {
    clearInterval(timer);
  }
}

/** The whole answer body, bounded; `grow` sees the size so far before each chunk is kept, and may refuse it by throwing. */
export function readAll(stream: IncomingMessage, max: number, grow: (size: number) => void = () => {}): Promise<Buffer> {
  return readBody(stream, max, { overflow: "destroy", grow }).catch((err: unknown) => {
    if (!(err instanceof BodyError)) throw err;
    if (err.code === "HUBMCP_BODY_TOO_LARGE") throw new GatewayError("upstream_too_large", "The tool server's answer is too large");
    throw new GatewayError("upstream_unavailable", "The tool server's answer broke off");
  });
}

/** Sends a rewritten answer as JSON, keeping the upstream status and headers. */
export function sendRewritten(res: ServerResponse, answer: IncomingMessage, body: string | Buffer, extra: Record<string, string>): void {
  const headers = answerHeaders(answer, extra, DROPPED_FROM_REWRITTEN);
  headers.push("content-length", String(Buffer.byteLength(body)));
  writeHeadFrom(res, answer.statusCode ?? 502, headers);
  res.end(body);
}
